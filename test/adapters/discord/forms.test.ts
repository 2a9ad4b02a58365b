// A server's form on Discord, end to end through discord.js, the strict fake Discord and an
// SDK-built MCP server on 127.0.0.1: the card is an ephemeral follow-up for the requester, its
// Answer button opens a modal (the click's first answer) with the defaults preset, a field that
// does not read is told privately and the form stays open, another person's click is refused
// without opening anything, Decline and Dismiss reach the server, and an expired form says so.
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest, PendingForm } from "../../../src/contracts/types.js";
import { formButtons, formModal } from "../../../src/adapters/discord/form-modal.js";
import { formFields } from "../../../src/tools/mcp/elicitation.js";
import { startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";
import { startAskingServer, type AskingServer } from "../../support/elicitation-harness.js";
import type { FakeUser } from "../../support/fake-discord.js";
import { modalProblems, type OpenedModal } from "../../support/fake-discord-modals.js";
import { call, say } from "../../support/model-scripted.js";
import { originFor } from "../../support/service-harness.js";
import { until } from "../../support/until.js";

let harness: DiscordHarness | undefined;
let server: AskingServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = server = undefined;
});

const said = (request: ModelRequest) => say(`server said: ${request.messages.at(-1)?.content ?? ""}`);

interface Card {
  readonly h: DiscordHarness;
  readonly s: AskingServer;
  readonly messageId: string;
  readonly ids: { readonly open: string; readonly decline: string; readonly dismiss: string };
}

async function askForForm(env: Record<string, string> = {}): Promise<Card> {
  const s = await startAskingServer();
  server = s;
  const h = await startDiscordHarness({ script: [call("rooms__book_room", {}), said], toolSource: s.manager.tools, env });
  harness = h;
  const { token } = h.fake.slashCommand("ask", h.alice, { values: { question: "book a room" } });
  const posted = await h.fake.waitForCall("POST", webhookPath(h.fake, token), (c) =>
    JSON.stringify(c.body.components ?? []).includes("form:o:"),
  );
  expect(posted.body.flags).toBe(64);
  expect(posted.body.content).toContain("The MCP server `rooms` asks you to fill in a form: Which room, and what for?");
  const message = h.fake.messagesIn(h.fake.general.id).find((candidate) => candidate.content === posted.body.content)!;
  const [open, decline, dismiss] = (posted.body.components[0].components as { custom_id: string }[]).map((button) => button.custom_id);
  return { h, s, messageId: message.id, ids: { open: open!, decline: decline!, dismiss: dismiss! } };
}

/** The private note a click or a modal's Send got back. */
function noteTo(h: DiscordHarness, token: string, match: (text: string) => boolean) {
  return h.fake.waitForCall(["POST", "PATCH"], new RegExp(`/${token}(/|$)`), (c) => {
    const content = c.body?.data?.content ?? c.body?.content;
    return typeof content === "string" && match(content);
  });
}

async function opened(h: DiscordHarness, card: Card, user: FakeUser): Promise<OpenedModal> {
  const before = h.fake.modals.length;
  h.fake.clickButton(card.messageId, card.ids.open, user);
  await until(() => h.fake.modals.length > before, "the form's modal");
  return h.fake.modals.at(-1)!;
}

describe("a server's form on Discord", () => {
  it("opens a modal with the defaults for the requester; a missing field is told and the form stays open; Send reaches the server", async () => {
    const card = await askForForm();
    const { h, s } = card;
    const modal = await opened(h, card, h.alice);
    expect(modal.data.title).toBe("Answer rooms");
    const inner = Object.fromEntries(modal.data.components.map((label) => [label.component.custom_id, label.component]));
    expect(inner.room).toMatchObject({
      type: 3,
      options: [
        { value: "oak", default: true },
        { value: "pine", default: false },
      ],
    });
    expect(inner.people).toMatchObject({ type: 4, value: "4" });
    expect(inner.projector).toMatchObject({ type: 23, default: true });
    const first = h.fake.submitModal(modal, h.alice, {});
    await noteTo(h, first.token, (text) => text === "Not sent: Purpose is required. Press the button to try again.");
    expect(s.log.results).toEqual([]);
    const again = await opened(h, card, h.alice);
    const sent = h.fake.submitModal(again, h.alice, { purpose: "retro", room: ["pine"], projector: false });
    await noteTo(h, sent.token, (text) => text === "Sent to `rooms`.");
    await until(() => s.log.results.length === 1, "the server's answer");
    expect(s.log.results).toEqual([
      { action: "accept", content: { room: "pine", purpose: "retro", people: 4, projector: false, note: "none" } },
    ]);
  });

  it("refuses another person's click without opening anything; Decline reaches the server", async () => {
    const card = await askForForm();
    const { h, s } = card;
    const bobs = h.fake.clickButton(card.messageId, card.ids.open, h.bob);
    await noteTo(h, bobs.token, (text) => text === `Only <@${h.alice.id}> can answer this form.`);
    const declined = h.fake.clickButton(card.messageId, card.ids.decline, h.bob);
    await noteTo(h, declined.token, (text) => text.startsWith("Only"));
    expect(h.fake.modals).toHaveLength(0);
    expect(s.log.results).toEqual([]);
    const mine = h.fake.clickButton(card.messageId, card.ids.decline, h.alice);
    await noteTo(h, mine.token, (text) => text === "You declined `rooms`'s form.");
    await until(() => s.log.results.length === 1, "the server's answer");
    expect(s.log.results).toEqual([{ action: "decline" }]);
  });

  it("Dismiss reaches the server as cancel; a form left unanswered closes at its expiry", async () => {
    const first = await askForForm();
    const dismissed = first.h.fake.clickButton(first.messageId, first.ids.dismiss, first.h.alice);
    await noteTo(first.h, dismissed.token, (text) => text === "You dismissed `rooms`'s form.");
    await until(() => first.s.log.results.length === 1, "the server's answer");
    expect(first.s.log.results).toEqual([{ action: "cancel" }]);
    await harness?.close();
    await server?.close();
    const card = await askForForm({ MCP_ELICITATION_TIMEOUT_MS: "1000" });
    await until(() => card.s.log.results.length === 1, "the form's expiry");
    expect(card.s.log.results).toEqual([{ action: "cancel" }]);
    const late = card.h.fake.clickButton(card.messageId, card.ids.open, card.h.alice);
    await noteTo(card.h, late.token, (text) => text.includes("not answered in time"));
    expect(card.h.fake.modals).toHaveLength(0);
  });

  it("a modal stays within Discord's limits at the protocol's extremes, and a form of more than 5 fields opens none", () => {
    const form = (properties: Record<string, unknown>): PendingForm => {
      const fields = formFields({ type: "object", properties });
      if (!fields.ok) throw new Error(fields.reason);
      return {
        formId: "frm_abcdefghijkl",
        runId: "run1",
        question: { kind: "form", server: "s".repeat(60), message: "m".repeat(5_000), fields: fields.fields },
        requester: { id: "1" },
        origin: originFor("1"),
        expiresAt: 0,
      };
    };
    const extreme = form({
      pick: {
        type: "string",
        title: "t".repeat(200),
        description: "d".repeat(500),
        enum: Array.from({ length: 25 }, (_, i) => `${i}${"v".repeat(90)}`),
        default: `3${"v".repeat(90)}`,
      },
      many: { type: "string", enum: Array.from({ length: 60 }, (_, i) => `choice ${i}`), default: "choice 7" },
      essay: { type: "string", maxLength: 4_000, default: "e".repeat(3_900) },
      days: { type: "array", items: { type: "string", enum: ["mon", "tue", "wed"] }, minItems: 1, default: ["tue"] },
    });
    expect(modalProblems(formModal(extreme))).toEqual([]);
    const six = form(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}`, { type: "string" }])));
    expect(formModal(six)).toBeUndefined();
    expect(JSON.stringify(formButtons(six))).not.toContain("form:o:");
    expect(JSON.stringify(formButtons(extreme))).toContain("form:o:");
  });
});
