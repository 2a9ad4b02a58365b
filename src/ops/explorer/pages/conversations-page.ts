// Conversations: the ones with runs, newest first, each with the facts the bot remembers about
// it and a button to delete one; a deletion goes to the audit log (who: the explorer's admin).
import { z } from "zod";
import type { PageHandler } from "../explorer-deps.js";
import { redirect, text } from "../http-io.js";
import { csrfField, html, page, table, when } from "../html.js";

const SHOWN = 25;

export const conversationsPage: PageHandler = async ({ url, csrf, deps }) => {
  const before = Number(url.searchParams.get("before") ?? "");
  const conversations = await deps.records.conversations(SHOWN, Number.isFinite(before) && before > 0 ? before : undefined);
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
      ? html`<p><a href="${`/admin/conversations?before=${last.lastRunAt}`}">Older conversations →</a></p>`
      : "";
  const body = conversations.length === 0 ? html`<p class="empty">No conversation has a recorded run yet.</p>` : html`${sections}${more}`;
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
