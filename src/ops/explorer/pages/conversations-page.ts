// Conversations: the ones with runs, newest first (of one workspace, or all), each with the facts
// the bot remembers about it and a button to delete one; a deletion goes to the audit log (who:
// the explorer's admin). The API gives the same list as JSON.
import { z } from "zod";
import type { ConversationEntry } from "../../../memory/run-records/record-store.js";
import { isInWorkspace } from "../../../memory/workspace-conversations.js";
import type { ExplorerDeps, PageHandler } from "../explorer-deps.js";
import { json, redirect, text } from "../http-io.js";
import { csrfField, html, page, table, when } from "../html.js";

const SHOWN = 25;
/** Conversations looked through for one workspace's, per page: a page answers in bounded time. */
const SCAN_BUDGET = 5_000;
const SCAN_CHUNK = 500;
const Workspace = z
  .string()
  .regex(/^(slack|discord):[^:\s]+$/, "expects <surface>:<id>, e.g. slack:T0123 or discord:1234")
  .optional();

/** The newest conversations before `before` (epoch ms), of `workspace` (`<surface>:<id>`) when given. */
async function conversationsOf(
  deps: ExplorerDeps,
  before: number | undefined,
  workspace: string | undefined,
): Promise<ConversationEntry[]> {
  if (!workspace) return deps.records.conversations(SHOWN, before);
  const colon = workspace.indexOf(":");
  const surface = workspace.slice(0, colon);
  const id = workspace.slice(colon + 1);
  const found: ConversationEntry[] = [];
  let after = before;
  for (let scanned = 0; scanned < SCAN_BUDGET && found.length < SHOWN; scanned += SCAN_CHUNK) {
    const page = await deps.records.conversations(SCAN_CHUNK, after);
    found.push(...page.filter((entry) => isInWorkspace(entry.conversationKey, surface, id)));
    if (page.length < SCAN_CHUNK) break;
    after = page.at(-1)!.lastRunAt;
  }
  return found.slice(0, SHOWN);
}

function queryOf(params: URLSearchParams): { readonly before?: number; readonly workspace?: string } | { readonly problem: string } {
  const before = Number(params.get("before") ?? "");
  const workspace = Workspace.safeParse(params.get("workspace")?.trim() || undefined);
  if (!workspace.success) return { problem: `workspace: ${workspace.error.issues[0]!.message}` };
  return { ...(Number.isFinite(before) && before > 0 ? { before } : {}), ...(workspace.data ? { workspace: workspace.data } : {}) };
}

export const apiConversations: PageHandler = async ({ url, deps }) => {
  const query = queryOf(url.searchParams);
  if ("problem" in query) return json(400, { error: query.problem });
  const conversations = await conversationsOf(deps, query.before, query.workspace);
  const withFacts = await Promise.all(
    conversations.map(async (entry) => ({ ...entry, facts: await deps.memory.list(entry.conversationKey) })),
  );
  return json(200, { conversations: withFacts, next: conversations.length === SHOWN ? (conversations.at(-1)?.lastRunAt ?? null) : null });
};

export const conversationsPage: PageHandler = async ({ url, csrf, deps }) => {
  const query = queryOf(url.searchParams);
  if ("problem" in query) return text(400, query.problem);
  const conversations = await conversationsOf(deps, query.before, query.workspace);
  const sections = await Promise.all(
    conversations.map(async (entry) => {
      const facts = await deps.memory.list(entry.conversationKey);
      return html`<section class="conversation"><h2>${entry.conversationKey}</h2><p>Latest run ${when(entry.lastRunAt)} UTC</p>
${table(
  ["Fact", "Remembered", "Used", ""],
  facts.map((fact) => [
    fact.text,
    when(fact.createdAt),
    `${fact.uses} times`,
    html`<form method="post" action="/admin/conversations/delete-fact" class="inline" data-confirm="Delete this fact? The bot forgets it for every later run.">${csrfField(csrf)}<input type="hidden" name="conversation" value="${entry.conversationKey}"><input type="hidden" name="fact" value="${fact.id}"><button type="submit">Delete</button></form>`,
  ]),
  "facts",
)}</section>`;
    }),
  );
  const last = conversations.at(-1);
  const more =
    conversations.length === SHOWN && last
      ? html`<p><a href="${`/admin/conversations?before=${last.lastRunAt}${query.workspace ? `&workspace=${encodeURIComponent(query.workspace)}` : ""}`}">Older conversations →</a></p>`
      : "";
  const filter = html`<form method="get" action="/admin/conversations" class="filters"><label>Workspace (slack:T…)<input type="text" name="workspace" value="${query.workspace ?? ""}"></label><button type="submit">Show</button></form>`;
  const body =
    conversations.length === 0
      ? html`${filter}<p class="empty">No conversation has a recorded run yet.</p>`
      : html`${filter}${sections}${more}`;
  return { status: 200, type: "html", body: page({ title: "Conversations", csrf, current: "/admin/conversations" }, body) };
};

const DeleteForm = z.object({ conversation: z.string().min(1).max(500), fact: z.string().min(1).max(100) });

export const deleteFact: PageHandler = async ({ form, deps }) => {
  const parsed = DeleteForm.safeParse({ conversation: form.get("conversation"), fact: form.get("fact") });
  if (!parsed.success) return text(400, "expects the conversation and the fact to delete");
  const { conversation, fact } = parsed.data;
  const gone = await deps.memory.forgetFact(conversation, fact);
  if (!gone) return text(404, "That fact is not remembered (any more).");
  const surface = conversation.startsWith("slack:") ? "slack" : conversation.startsWith("discord:") ? "discord" : "console";
  await deps.audit.append({
    kind: "fact_deleted",
    runId: "",
    conversationKey: conversation,
    surface,
    place: {},
    requester: { id: "admin", name: "the run explorer's admin" },
    result: gone.text.slice(0, 200),
  });
  return redirect("/admin/conversations");
};
