// Where a person is looking while they talk to the bot in its DM (Slack's agent container sends
// app_context_changed as they move between channels): kept for their next question there, which
// gets it as a note ("The person is viewing the channel <#C…>"), so "summarise this" means that
// channel. Kept an hour: a view older than that says little about the next question.
import type { ChatMessage, TaskOrigin } from "../../contracts/types.js";
import type { CoreContext } from "./core-context.js";
import type { ViewingInput } from "./inbound.js";

const VIEWING_TTL_MS = 60 * 60_000;

const viewingKey = (surface: string, workspace: string | undefined, person: string) => `viewing:${surface}:${workspace ?? "-"}:${person}`;

/** Never rejects: without it the next question goes without the note. */
export async function rememberViewing<C, R>(ctx: CoreContext<C, R>, input: ViewingInput): Promise<void> {
  const key = viewingKey(ctx.surface.name, input.workspace, input.person.id);
  try {
    if (input.viewing === undefined) await ctx.store.delete(key);
    else await ctx.store.set(key, input.viewing, VIEWING_TTL_MS);
  } catch (error) {
    ctx.logger.warn({ err: error, user: input.person.id }, "could not keep what a person is viewing");
  }
}

/** The note for a question asked in a DM by someone whose view is known; undefined otherwise. Never rejects. */
export async function viewingNote<C, R>(ctx: CoreContext<C, R>, origin: TaskOrigin): Promise<ChatMessage | undefined> {
  if (!origin.scope?.dm) return undefined;
  const key = viewingKey(origin.surface, origin.scope.workspace, origin.requester.id);
  const viewing = await ctx.store.get(key).catch((error: unknown) => {
    ctx.logger.warn({ err: error, user: origin.requester.id }, "could not read what a person is viewing");
    return undefined;
  });
  if (typeof viewing !== "string" || viewing === "") return undefined;
  return {
    role: "system",
    content: `As they ask, the person is viewing ${viewing} in ${ctx.surface.name === "slack" ? "Slack" : ctx.surface.name}.`,
  };
}
