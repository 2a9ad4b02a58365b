// The chat commands, one row each, for every surface: Slack reads them after the mention,
// Discord registers them as slash commands, the console takes them after a "/". Every command
// goes through governance: the asker must be allowed in the conversation (a blocked person
// gets the refusal), then the authority must allow the command's action.
import type { Command, CommandRequest } from "./command.js";
import { usageCommandText } from "../../cost/usage-text.js";
import { auditRefusalText } from "../../governance/command-text.js";
import { actorAt } from "./core-context.js";
import {
  feedbackText,
  fitted,
  forgetText,
  memoryText,
  ONLY_ADMINS_FORGET,
  ONLY_ADMINS_USAGE,
  ONLY_APPROVERS_FEEDBACK,
  PRIVATE_ELSEWHERE,
  REFUSED_IN_PUBLIC,
  STORAGE_TROUBLE,
} from "./texts.js";
import { CONNECTION_COMMANDS } from "./connection-commands.js";
import { SCHEDULE_COMMANDS } from "./schedule-commands.js";
import { toolListText } from "./tool-list-text.js";

const conversationOf = (request: CommandRequest) => request.at.origin.conversationKey;
/** The asker's workspace where the surface serves several: the audit and the feedback show its own alone. */
const askersWorkspace = ({ ctx, at }: CommandRequest) => {
  const workspace = at.origin.scope?.workspace;
  return ctx.surface.manyWorkspaces && workspace ? { surface: at.origin.surface, workspace } : undefined;
};
const FEEDBACK_SHOWN = 20;

export const COMMANDS: readonly Command[] = [
  {
    name: "memory",
    summary: "Show what the agent remembers about this conversation",
    answer: async (request) => memoryText(await request.ctx.service.memory.facts(conversationOf(request)), request.ctx.surface.format),
  },
  {
    name: "forget",
    summary: "Clear what the agent remembers about this conversation: its facts and its history",
    guard: { action: "forget", refusal: ONLY_ADMINS_FORGET },
    answer: async (request) => forgetText(await request.ctx.service.memory.forget(conversationOf(request))),
  },
  {
    name: "tools",
    summary: "List the agent's tools: what each may do here (read, asks, runs without asking, denied) and where it comes from",
    answer: async ({ ctx, at }) =>
      ctx.surface.format.block(fitted(toolListText(ctx.service.tools.list(ctx.surface.name, at.origin)), ctx.surface.format.maxChars - 20)),
  },
  {
    name: "audit",
    summary: "Admins: the latest 20 approvals, decisions and writes",
    guard: {
      action: "audit",
      refusal: ({ ctx, at }) => auditRefusalText(at.origin.surface, at.origin.requester.id, ctx.governance.source.path),
    },
    private: true,
    answer: async (request) => {
      const { ctx } = request;
      return fitted(await ctx.governance.commands.audit(ctx.surface.linkStyle, askersWorkspace(request)), ctx.surface.format.maxChars);
    },
  },
  {
    name: "settings",
    summary: "The agent's settings in this channel and your limits left",
    answer: async ({ ctx, at }) => ctx.surface.format.plain(await ctx.governance.commands.settings(at.origin)),
  },
  {
    name: "feedback",
    summary: "Approvers: 👍 / 👎 totals and the latest 20 votes with links",
    guard: { action: "feedback", refusal: ONLY_APPROVERS_FEEDBACK },
    private: true,
    async answer(request) {
      const { feedback } = request.ctx.service;
      const within = askersWorkspace(request);
      const [totals, entries] = await Promise.all([feedback.totals(within), feedback.recent(FEEDBACK_SHOWN, within)]);
      return feedbackText(totals, entries, request.ctx.surface.format);
    },
  },
  {
    name: "usage",
    summary: "Admins: today's and this month's tokens and cost, here and in the workspace",
    guard: { action: "usage", refusal: ONLY_ADMINS_USAGE },
    private: true,
    answer: async ({ ctx, at }) => {
      const { surface, scope } = at.origin;
      const where = { surface, channel: scope?.channel ?? surface, ...(scope?.workspace ? { workspace: scope.workspace } : {}) };
      return ctx.surface.format.plain(await usageCommandText(ctx.store, where, ctx.prices, ctx.clock()));
    },
  },
  ...SCHEDULE_COMMANDS,
  ...CONNECTION_COMMANDS,
];

/** The command a text names (its first word, any case, a trailing "?" or "!" allowed), with what follows it. */
export function commandIn(text: string): { readonly command: Command; readonly rest: string } | undefined {
  const [first = "", ...words] = text.trim().split(/\s+/);
  const command = COMMANDS.find((candidate) => candidate.name === first.toLowerCase().replace(/[.!?]+$/, ""));
  if (!command || (words.length > 0 && !command.takesText)) return undefined;
  return { command, rest: words.join(" ") };
}

/** Never throws: a failure is logged and the asker hears that it did not work. */
export async function runCommand(request: CommandRequest & { readonly command: Command }): Promise<void> {
  const { ctx, at, command } = request;
  const access = await ctx.governance.runPolicy.check({ kind: "command", origin: at.origin });
  if (access.kind === "refused") return ctx.tell(at, access.text, REFUSED_IN_PUBLIC);
  if (command.guard && !ctx.governance.authority.may(command.guard.action, actorAt(at))) {
    const { refusal } = command.guard;
    return ctx.tell(at, typeof refusal === "string" ? refusal : refusal(request));
  }
  let text: string;
  try {
    text = await command.answer(request);
  } catch (error) {
    ctx.logger.error({ err: error, command: command.name }, "a command failed");
    return ctx.tell(at, STORAGE_TROUBLE);
  }
  if (command.private) return ctx.tell(at, text, PRIVATE_ELSEWHERE);
  if (!(await ctx.surface.post(at, text))) ctx.logger.error({ command: command.name }, "could not post a command's answer");
}
