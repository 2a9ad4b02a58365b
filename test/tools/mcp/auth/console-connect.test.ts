// Connecting a `user` MCP server from the console, against a real authorization server: the run
// pauses with a private Connect line, the browser signs in, the page says so, and the run goes on
// once as the person; a replayed, expired or foreign link changes nothing; the tokens and the
// link are nowhere in the store as they are; `disconnect` revokes them. (Logs: console-connect-process.test.ts.)
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createConnectStates } from "../../../../src/tools/mcp/auth/connect-state.js";
import { textReply, toolCallReply } from "../../../support/fake-openai-server.js";
import { mapStore } from "../../../support/map-store.js";
import { useOAuthHarness } from "../../../support/oauth-harness.js";
import { openInBrowser } from "../../../support/plain-browser.js";
import { storedBytes } from "../../../support/store-bytes.js";

const oauth = useOAuthHarness();
const SECRET = Buffer.from("a-test-approval-secret-0123456789");

/** A state signed with the bot's key for what the link of `link` names, changed by `change`. */
async function craftedLink(link: string, change: { person?: string; clockOffsetMs?: number }): Promise<string> {
  const url = new URL(link);
  const state = JSON.parse(Buffer.from(url.searchParams.get("state")!.split(".")[0]!, "base64url").toString());
  const states = createConnectStates(
    mapStore(),
    async () => SECRET,
    () => Date.now() + (change.clockOffsetMs ?? 0),
  );
  const { text } = await states.issue({
    owner: { ...state.owner, ...(change.person ? { person: change.person } : {}) },
    server: state.server,
    runId: state.runId,
    callId: state.callId,
  });
  url.searchParams.set("state", text);
  return url.toString();
}

describe("connecting a user server from the console", () => {
  it("pauses the run with a Connect line; after the sign-in the page says so and the run goes on once, as the person", async () => {
    const { console, model, server } = await oauth.start({ auth: { type: "user" } });
    model.enqueue(
      toolCallReply([{ name: "docs__connect", args: {} }]),
      toolCallReply([{ name: "docs__whoami", args: {} }]),
      textReply("done"),
    );
    console.type("who am I at docs?");
    const link = await connectLink(console);
    // Expired, or for another person: refused, and the run still waits.
    expect(await openInBrowser(await craftedLink(link, { clockOffsetMs: -11 * 60_000 }))).toMatchObject({
      status: 410,
      text: expect.stringContaining("expired"),
    });
    expect(await openInBrowser(await craftedLink(link, { person: "bob" }))).toMatchObject({
      status: 403,
      text: expect.stringContaining("another person"),
    });
    expect(server.as.tokenRequests).toEqual([]);
    expect(model.requests).toHaveLength(1);
    // The prompt is the person's again while the run waits.
    console.type("/connections");
    await console.waitFor("- docs: not connected", "the connections while the run waits");

    expect(await openInBrowser(link)).toEqual({ status: 200, text: "Connected to docs — you can close this tab." });
    await console.waitFor("done", "the answer");
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain("you are ada");
    expect(server.as.tokenRequests.map((request) => request.grantType)).toEqual(["authorization_code"]);
    // Replayed: nothing changes, the run does not go on twice.
    expect(await openInBrowser(link)).toMatchObject({ status: 409, text: expect.stringContaining("used already") });
    expect(model.requests).toHaveLength(3);

    console.type("/connections");
    await console.waitFor(/- docs: connected since \d{4}-\d\d-\d\d \d\d:\d\d UTC/, "the connection listed");

    // Nowhere as they are: not in the store (run records, audit, checkpoints, the connection), not on screen.
    const file = await storedBytes(`sqlite://${join(oauth.apps.folder, "bot.sqlite")}`);
    // Nor the Connect link: whoever holds it could connect their own account for the person's run.
    expect(file.includes(new URL(link).searchParams.get("state")!)).toBe(false);
    expect(file.includes(link)).toBe(false);
    expect(server.as.issued.length).toBeGreaterThanOrEqual(2);
    for (const token of server.as.issued) {
      expect(file.includes(token)).toBe(false);
      expect(console.shown()).not.toContain(token);
    }

    console.type("/disconnect docs");
    await console.waitFor("Disconnected docs: the bot no longer holds your sign-in there.", "the disconnect");
    expect(server.as.revocations).toHaveLength(1);
    expect(server.as.issued).toContain(server.as.revocations[0]);
    console.type("/connections");
    await console.waitFor("- docs: not connected", "the connection gone");
  });

  it.each([
    ["naming its metadata", false],
    ["whose metadata is at the well-known place", true],
  ])("a server with no auth entry that answers 401 %s is connected per person", async (_case, bareChallenge) => {
    const { console, model } = await oauth.start({ bareChallenge });
    await console.waitFor("MCP server docs", "the server line");
    model.enqueue(toolCallReply([{ name: "docs__connect", args: {} }]), textReply("connected now"));
    console.type("connect me to docs");
    expect(await openInBrowser(await connectLink(console))).toMatchObject({ status: 200 });
    await console.waitFor("connected now", "the answer");
  });
});

describe("the console with its explorer on", () => {
  it("serves the sign-in on the explorer's port (PORT): both work", async () => {
    const { console, model, port } = await oauth.start({
      auth: { type: "user" },
      env: { ADMIN_TOKEN: "admin-token-for-tests-0123456789" },
    });
    model.enqueue(toolCallReply([{ name: "docs__connect", args: {} }]), textReply("connected now"));
    console.type("connect me to docs");
    expect(await openInBrowser(await connectLink(console))).toMatchObject({
      status: 200,
      text: "Connected to docs — you can close this tab.",
    });
    await console.waitFor("connected now", "the answer");
    expect((await fetch(`http://127.0.0.1:${port}/admin/login`)).status).toBe(200);
  });
});

async function connectLink(console: { waitFor(text: RegExp, what?: string): Promise<void>; shown(): string }): Promise<string> {
  await console.waitFor(/Connect docs: \S+/, "the Connect line");
  return /Connect docs: (\S+)/.exec(console.shown())![1]!;
}
