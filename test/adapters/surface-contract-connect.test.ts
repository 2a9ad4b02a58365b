// The contract every surface keeps for a run that waits for its requester to connect an MCP
// server (OAuth), written once and run on Slack, Discord and the console: the requester alone gets
// the Connect link (privately on the chat platforms, at the prompt in the console), nobody sees it
// in the conversation, there is nothing to approve, and once they connected the run goes on once,
// as them. Another person's grant and a second callback change nothing. The OAuth itself runs
// against a real authorization server in test/tools/mcp/auth/.
import { afterEach, describe, expect, it } from "vitest";
import { ownerOf } from "../../src/tools/mcp/person-server.js";
import { CONNECT_BASE, connectStandIn } from "../support/connect-stand-in.js";
import { call, say } from "../support/model-scripted.js";
import { consoleDriver, discordDriver, seen, slackDriver, type Session } from "../support/surface-drivers.js";
import { until } from "../support/until.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe.each([slackDriver, discordDriver, consoleDriver])("the $name surface", (driver) => {
  it("gives the requester alone the Connect link, and goes on once, as them, when they connected", async () => {
    const docs = connectStandIn();
    session = await driver.start({ script: [call("docs__whoami", {}, "call_who"), say("Done: you are known at docs.")], connect: docs });
    await session.ask("alice", "who am I at docs?");
    await until(() => docs.pending.length === 1, "the run waiting for a connection");
    const [pending] = docs.pending;
    const link = `Connect docs: ${CONNECT_BASE}?state=${pending!.runId}`;
    if (driver.people) {
      await seen(() => session!.privateText("alice"), new RegExp(link.replace(/[.?]/g, "\\$&")));
      expect(session.privateText("bob")).not.toContain(CONNECT_BASE);
      expect(session.publicText()).not.toContain(CONNECT_BASE);
      expect(session.shows("approve")).toBe(false);
    } else await seen(() => session!.publicText(), new RegExp(link.replace(/[.?]/g, "\\$&")));
    expect(docs.runs()).toBe(0);

    const grant = { owner: ownerOf(pending!.origin), server: "docs", runId: pending!.runId, callId: pending!.callId };
    const grants = session.service.connectionGrants;
    if (driver.people) {
      const bob = { ...grant, owner: { ...grant.owner, person: session.idOf("bob") } };
      expect(await grants.check(bob)).toBe("other_person");
      await grants.connected(bob);
    }
    expect(await grants.check(grant)).toBe("ok");
    docs.connect(pending!.origin.requester.id);
    await grants.connected(grant);
    await seen(() => session!.publicText(), /Done: you are known at docs\./);
    expect(docs.runs()).toBe(1);
    // A second callback (a replay, another process) finds nothing waiting.
    expect(await grants.check(grant)).toBe("gone");
    await grants.connected(grant);
    expect(docs.runs()).toBe(1);
  });
});
