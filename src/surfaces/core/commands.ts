// The chat commands, one row each, for every surface: Slack reads them after the mention,
// Discord registers them as slash commands, the console takes them after a "/". Every command
// goes through governance: the asker must be allowed in the conversation (a blocked person
// gets the refusal), then the authority must allow the command's action.
import type { Action } from "../../governance/authority.js";
import { actorAt, type CoreContext } from "./core-context.js";
import type { Spot } from "./surface.js";
import {
  feedbackText,
  fitted,
  forgetText,
  memoryText,
  ONLY_ADMINS_AUDIT,
  ONLY_ADMINS_FORGET,
  ONLY_APPROVERS_FEEDBACK,
  PRIVATE_ELSEWHERE,
  REFUSED_IN_PUBLIC,
  STORAGE_TROUBLE,
} from "./texts.js";
import { toolListText } from "./tool-list-text.js";

export interface CommandRequest {
  // biome-ignore lint/suspicious/noExplicitAny: a command works the same whatever the surface's click and reference types are.
  readonly ctx: CoreContext<any, any>;
  readonly at: Spot;
  /** What followed the command's name, or its options on Discord. */
  readonly text: string;
  readonly options: Readonly<Record<string, string>>;
}

export interface Command {
  readonly name: string;
  /** One line for the console's help and Discord's command list (at most 100 characters). */
  readonly summary: string;
  /** What the authority must allow besides being allowed in the conversation, and what a refused asker is told. */
  readonly guard?: { readonly action: Action; readonly refusal: string };
  /** The answer names people or holds the log: only the asker sees it. */
  readonly private?: boolean;
  /** True when text may follow the name (`schedule <when>: <what>`); otherwise such text makes a question. */
  readonly takesText?: boolean;
  answer(request: CommandRequest): Promise<string>;
}

const conversationOf = (request: CommandRequest) => request.at.origin.conversationKey;
const FEEDBACK_SHOWN = 20;

export const COMMANDS: readonly Command[] = [
  {
    name: "memory",
    summary: "Show what the agent remembers about this conversation",
    answer: async (request) => memoryText(await request.ctx.service.rememberedFacts(conversationOf(request)), request.ctx.surface.format),
  },
  {
    name: "forget",
    summary: "Clear what the agent remembers about this conversation",
    guard: { action: "forget", refusal: ONLY_ADMINS_FORGET },
    answer: async (request) => forgetText(await request.ctx.service.forget(conversationOf(request))),
  },
  {
    name: "tools",
    summary: "List the agent's tools: read or write, and which MCP server each comes from",
    answer: async ({ ctx }) =>
      ctx.surface.format.block(fitted(toolListText(ctx.service.toolList(ctx.surface.name)), ctx.surface.format.maxChars - 20)),
  },
  {
    name: "audit",
    summary: "Admins: the latest 20 approvals, decisions and writes",
    guard: { action: "audit", refusal: ONLY_ADMINS_AUDIT },
    private: true,
    answer: async ({ ctx }) => fitted(await ctx.governance.commands.audit(ctx.surface.linkStyle), ctx.surface.format.maxChars),
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
    async answer({ ctx }) {
      const [totals, entries] = await Promise.all([ctx.service.feedback.totals(), ctx.service.feedback.recent(FEEDBACK_SHOWN)]);
      return feedbackText(totals, entries, ctx.surface.format);
    },
  },
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
  const access = ctx.governance.runPolicy.access(at.origin);
  if (access.kind === "refused") return ctx.tell(at, access.text, REFUSED_IN_PUBLIC);
  if (command.guard && !ctx.governance.authority.may(command.guard.action, actorAt(at))) return ctx.tell(at, command.guard.refusal);
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
