// A schedule whose slot needs its owner to connect an MCP server (OAuth) they have not connected:
// the slot does not wait for them. It is skipped, saying so, and its owner alone is told with a
// Connect link (a button where the surface shows one); once they are connected, the next slot runs as them.
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { createLocalSlotTimer } from "../../src/schedules/local-slot-timer.js";
import { CONNECT_BASE, connectStandIn } from "../support/connect-stand-in.js";
import { call, ScriptedModel, say } from "../support/model-scripted.js";
import { advanceTo, answers, at, manualClock, schedule, useScheduleBots } from "../support/schedule-harness.js";

const { bot } = useScheduleBots();

describe("a schedule's slot without its owner's connection", () => {
  it("is skipped, its owner alone gets the Connect link, and the next slot runs as them once they connected", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const docs = connectStandIn();
    const model = new ScriptedModel([call("docs__whoami", {}, "call_1"), call("docs__whoami", {}, "call_2"), say("You are U1 at docs.")]);
    const target = await bot({ clock, model, timer: createLocalSlotTimer(silentLogger, clock), connect: docs });
    const created = await schedule(target, "every day at 9:00 UTC: who am I at docs?");
    if (created.kind !== "created") throw new Error(created.reply);

    await advanceTo(target, clock, "2027-01-16T09:00:00Z", 1);
    expect(answers(target)).toEqual([
      "This slot was skipped: it needs its owner to connect docs, and they were sent a private link to do it. The next slot runs as usual.",
    ]);
    expect(target.told).toHaveLength(1);
    expect(target.told[0]!.origin.requester.id).toBe("U1");
    expect(target.told[0]!.text).toContain(`Connect docs: ${CONNECT_BASE}?state=`);
    // Where the surface shows buttons, the same link is a Connect button under the note.
    expect(target.told[0]!.link).toEqual({
      label: "Connect docs",
      url: expect.stringMatching(new RegExp(`^${CONNECT_BASE.replace(/[.?]/g, "\\$&")}\\?state=`)),
      caption:
        "Your schedule needs you to connect docs, so this slot was skipped. Sign in as yourself with the button (the link is yours alone and lasts 10 minutes); the next slots run as you once you are connected.",
    });
    expect(target.told[0]!.text).toContain(target.told[0]!.link!.url);
    expect(docs.runs()).toBe(0);
    // Nothing waits: no approval is stored for the slot.
    expect(await target.service.waitingApprovals(target.shown[0]!.origin.conversationKey)).toEqual([]);

    docs.connect("U1");
    await advanceTo(target, clock, "2027-01-17T09:00:00Z", 2);
    expect(answers(target)[1]).toBe("You are U1 at docs.");
    expect(docs.runs()).toBe(1);
    expect(target.told).toHaveLength(1);
  });
});
