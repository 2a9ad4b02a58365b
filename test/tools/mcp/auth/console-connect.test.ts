// Connecting a `user` MCP server from the console, against a real authorization server: the run
// pauses with a private Connect line, the browser signs in, the page says so, and the run goes on
// once as the person; a replayed, expired or foreign link changes nothing.
import { describe, expect, it } from "vitest";
import { textReply, toolCallReply } from "../../../support/fake-openai-server.js";
import { openInBrowser, useOAuthHarness } from "../../../support/oauth-harness.js";

const oauth = useOAuthHarness();

describe("connecting a user server from the console", () => {
  it("pauses the run with a Connect line; after the sign-in the page says so and the run goes on once, as the person", async () => {
    const { console, model, server } = await oauth.start({ auth: { type: "user" } });
    model.enqueue(
      toolCallReply([{ name: "docs__connect", args: {} }]),
      toolCallReply([{ name: "docs__whoami", args: {} }]),
      textReply("done"),
    );
    console.type("who am I at docs?");
    const link = await setupLink(console);
    const page = await openInBrowser(link);
    expect(page).toEqual({ status: 200, text: "Connected to docs — you can close this tab." });
    await console.waitFor("done", "the answer");
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain("you are ada");
    expect(server.as.tokenRequests.map((request) => request.grantType)).toEqual(["authorization_code"]);
    // Replayed: nothing changes, the run does not go on twice.
    expect(await openInBrowser(link)).toMatchObject({ status: 409, text: expect.stringContaining("used already") });
    expect(model.requests).toHaveLength(3);
  });
});

async function setupLink(console: { waitFor(text: RegExp, what?: string): Promise<void>; shown(): string }): Promise<string> {
  await console.waitFor(/Connect docs: \S+/, "the Connect line");
  return /Connect docs: (\S+)/.exec(console.shown())![1]!;
}
