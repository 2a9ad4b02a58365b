// The cross-channel rule: an answer quoting a place not everyone at the destination can see is
// held, unsure means held, and CROSS_CHANNEL_READS says what a hold does (issue 39, item 3).
import { describe, expect, it } from "vitest";
import type { Audience } from "../../../src/runs/api/audiences.js";
import { covers, holdDecision } from "../../../src/runs/holds/hold-decision.js";

const everyone: Audience = { kind: "everyone" };
const members = (...ids: string[]): Audience => ({ kind: "members", members: new Set(ids) });
const unknown: Audience = { kind: "unknown", why: "missing_scope" };

describe("covers", () => {
  it("a public place covers any destination; a private one covers only a destination whose people all see it", () => {
    expect(covers(everyone, members("U1", "U2"))).toBe(true);
    expect(covers(everyone, everyone)).toBe(true);
    expect(covers(members("U1", "U2", "U3"), members("U1", "U2"))).toBe(true);
    expect(covers(members("U1", "U2"), members("U1", "U2", "U9"))).toBe(false);
    expect(covers(members("U1", "U2"), everyone)).toBe(false);
  });

  it("a place or destination the platform could not describe is not covered", () => {
    expect(covers(unknown, members("U1"))).toBe(false);
    expect(covers(everyone, unknown)).toBe(false);
  });
});

describe("holdDecision", () => {
  const quoted = [
    { channel: "C_OPEN", audience: everyone },
    { channel: "C_HR", audience: members("U1", "U2") },
  ];

  it("holds an answer quoting a place some of the destination can't see, naming only that place", () => {
    expect(holdDecision("ask", members("U1", "U2", "U9"), quoted)).toEqual({ kind: "hold", places: ["C_HR"], action: "ask" });
    expect(holdDecision("private", everyone, quoted)).toEqual({ kind: "hold", places: ["C_HR"], action: "private" });
  });

  it("posts when every quoted place is seen by everyone at the destination", () => {
    expect(holdDecision("ask", members("U1", "U2"), quoted)).toEqual({ kind: "post" });
    expect(holdDecision("ask", everyone, [])).toEqual({ kind: "post" });
  });

  it("posts under allow, whoever can see what", () => {
    expect(holdDecision("allow", everyone, quoted)).toEqual({ kind: "post" });
  });

  it("holds when the platform could not say who sees the place or the destination", () => {
    expect(holdDecision("ask", members("U1"), [{ channel: "C_X", audience: unknown }])).toMatchObject({ kind: "hold", places: ["C_X"] });
    expect(holdDecision("ask", unknown, [{ channel: "C_OPEN", audience: everyone }])).toMatchObject({ kind: "hold" });
  });
});
