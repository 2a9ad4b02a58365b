// The contract every surface keeps for a server's form (MCP elicitation), written once and run on
// Slack, Discord and the console through their real libraries against an SDK-built MCP server on
// 127.0.0.1: the requester alone is shown the form; what they leave as it is goes with its
// default; a decline reaches the server as one; anyone else's press is refused privately and
// changes nothing, and the requester can still answer. Each platform's own details (the modal's
// fields, a bad field, Dismiss, the expiry) are in test/adapters/<surface>/forms.test.ts.
import { dataInside } from "../../src/agent/context/data-blocks.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/contracts/types.js";
import { startAskingServer, type AskingServer } from "../support/elicitation-harness.js";
import { call, say } from "../support/model-scripted.js";
import { consoleDriver, discordDriver, seen, slackDriver, type Session, type SurfaceDriver } from "../support/surface-drivers.js";
import { until } from "../support/until.js";

let session: Session | undefined;
let server: AskingServer | undefined;
afterEach(async () => {
  await session?.close();
  await server?.close();
  session = server = undefined;
});

/** The model repeats the server's answer, which it reads inside its data block. */
const said = (request: ModelRequest) => say(`server said: ${dataInside(String(request.messages.at(-1)?.content ?? ""))}`);
const CARD = /asks you to fill in a form: Which room, and what for\?/;
/** What the server received once the requester sent the form with only its required field typed. */
const WITH_DEFAULTS = { action: "accept", content: { room: "oak", purpose: "retro", people: 4, projector: true, note: "none" } };

/** A session whose run calls the server's tool that asks for the room booking form, asked by alice. */
async function askForForm(driver: SurfaceDriver): Promise<{ session: Session; server: AskingServer }> {
  server = await startAskingServer();
  session = await driver.start({ script: [call("rooms__book_room", {}), said], toolSource: server.manager.tools });
  await session.ask("alice", "book a room");
  await session.waitForForm();
  return { session, server };
}

describe.each([slackDriver, discordDriver, consoleDriver])("the $name surface", (driver) => {
  it("shows the requester alone the form; what they leave goes with its default, and the run goes on with the answer", async () => {
    const { session, server } = await askForForm(driver);
    await seen(() => session.privateText("alice"), CARD);
    if (driver.people) {
      expect(session.privateText("bob")).not.toMatch(CARD);
      expect(session.publicText()).not.toMatch(CARD);
    }
    await session.sendForm("alice", { Purpose: "retro" });
    await until(() => server.log.results.length === 1, "the server's answer");
    expect(server.log.results).toEqual([WITH_DEFAULTS]);
    await seen(() => session.privateText("alice"), /Sent to `?rooms`?\./);
    await seen(() => session.publicText(), /server said: \{"action":"accept"/);
  });

  it("takes the requester's decline to the server as a decline, and the run goes on with it", async () => {
    const { session, server } = await askForForm(driver);
    await session.declineForm("alice");
    await until(() => server.log.results.length === 1, "the server's answer");
    expect(server.log.results).toEqual([{ action: "decline" }]);
    await seen(() => session.privateText("alice"), /You declined `?rooms`?'s form\./);
    await seen(() => session.publicText(), /server said: \{"action":"decline"\}/);
  });

  it.runIf(driver.people)(
    "refuses anyone else's Answer and Decline privately, opens and sends nothing; the requester still answers",
    async () => {
      const { session, server } = await askForForm(driver);
      const refusal = new RegExp(`Only ${session.mention("alice").replace(/[<@>]/g, "\\$&")} can answer this form\\.`, "g");
      await session.pressForm("bob", "answer");
      await seen(() => session.privateText("bob"), refusal);
      await session.pressForm("bob", "decline");
      await until(() => (session.privateText("bob").match(refusal) ?? []).length === 2, "both of bob's presses refused");
      expect(server.log.results).toEqual([]);
      expect(session.privateText("alice")).not.toMatch(/Only .* can answer/);
      await session.sendForm("alice", { Purpose: "retro" });
      await until(() => server.log.results.length === 1, "the server's answer");
      expect(server.log.results).toEqual([WITH_DEFAULTS]);
      await seen(() => session.publicText(), /server said: \{"action":"accept"/);
    },
  );
});
