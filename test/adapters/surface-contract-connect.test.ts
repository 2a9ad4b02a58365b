// The contract every surface keeps for a run that waits for its requester to connect an MCP
// server (OAuth), written once and run on Slack, Discord and the console: the requester alone gets
// the Connect link (privately on the chat platforms, as a link button, at the prompt in the
// console), nobody sees it in the conversation, there is nothing to approve, no record keeps the
// link, and once they connected the run goes on once, as them, also on a process started after
// the link was shown. Another person's grant and a second callback change nothing. The OAuth
// itself runs against a real authorization server in test/tools/mcp/auth/.
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
    const url = `${CONNECT_BASE}?state=${pending!.runId}`;
    if (driver.people) {
      await until(() => session!.privateLinks("alice").length > 0, "alice's Connect button");
      expect(session.privateLinks("alice")).toEqual([{ label: "Connect docs", url }]);
      await seen(() => session!.privateText("alice"), /connect docs/i);
      expect(session.privateLinks("bob")).toEqual([]);
      expect(session.privateText("bob")).not.toContain(CONNECT_BASE);
      expect(session.publicText()).not.toContain(CONNECT_BASE);
      expect(session.shows("approve")).toBe(false);
    } else await seen(() => session!.publicText(), new RegExp(`Connect docs: ${url}`.replace(/[.?]/g, "\\$&")));
    expect(docs.runs()).toBe(0);
    // The paused run's record keeps no link: nothing stored holds it.
    expect((await session.storedBytes()).includes(CONNECT_BASE)).toBe(false);

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

  it("goes on once on a process started between the link and the callback", async () => {
    const docs = connectStandIn();
    session = await driver.start({ script: [call("docs__whoami", {}, "call_who")], connect: docs });
    await session.ask("alice", "who am I at docs?");
    await until(() => docs.pending.length === 1, "the run waiting for a connection");
    const [pending] = docs.pending;
    if (driver.people) await until(() => session!.privateLinks("alice").length > 0, "alice's Connect button");
    else await seen(() => session!.publicText(), /Connect docs: /);

    await session.restart([say("Done: you are known at docs.")]);
    expect((await session.storedBytes()).includes(CONNECT_BASE)).toBe(false);
    const grant = { owner: ownerOf(pending!.origin), server: "docs", runId: pending!.runId, callId: pending!.callId };
    expect(await session.service.connectionGrants.check(grant)).toBe("ok");
    docs.connect(pending!.origin.requester.id);
    await session.service.connectionGrants.connected(grant);
    await seen(() => session!.publicText(), /Done: you are known at docs\./);
    expect(docs.runs()).toBe(1);
    expect(await session.service.connectionGrants.check(grant)).toBe("gone");
  });
});
