// The explorer's sign-in limits, on its sessions with a clock the test moves: 5 tries a minute per
// address that many addresses can't flush, and 60 failed sign-ins a minute from everyone together.
import { describe, expect, it } from "vitest";
import { createSessions, type SignInResult } from "../../../src/ops/explorer/sessions.js";

const TOKEN = "admin-token-for-tests-0123456789";
const WRONG = "wrong-token-0123456789";

function sessionsOnAClock() {
  let now = 1_700_000_000_000;
  const sessions = createSessions(TOKEN, () => now);
  return {
    tryAs: (client: string, token = WRONG): SignInResult => sessions.signIn(client, token),
    pass: (ms: number) => {
      now += ms;
    },
  };
}

const limitedFor = (by: "client" | "everyone") => expect.objectContaining({ kind: "limited", by });

describe("the limit per address", () => {
  it("is 5 tries a minute, then a wait until that minute is over", () => {
    const { tryAs, pass } = sessionsOnAClock();
    for (let index = 0; index < 5; index++) expect(tryAs("198.51.100.1")).toEqual({ kind: "wrong" });
    pass(20_000);
    expect(tryAs("198.51.100.1", TOKEN)).toEqual({ kind: "limited", by: "client", retryAfterMs: 40_000 });
    pass(40_000);
    expect(tryAs("198.51.100.1", TOKEN)).toMatchObject({ kind: "signed_in" });
  });

  it("10,001 addresses in a minute don't reset it for the first", () => {
    const { tryAs, pass } = sessionsOnAClock();
    for (let index = 0; index < 5; index++) tryAs("198.51.100.1");
    expect(tryAs("198.51.100.1")).toEqual(limitedFor("client"));
    for (let index = 0; index < 10_001; index++) {
      pass(4);
      tryAs(`10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`);
    }
    expect(tryAs("198.51.100.1", TOKEN)).toEqual(limitedFor("client"));
  });

  it("a flood of new addresses over hours keeps memory bounded without freeing the ones limited now", () => {
    const { tryAs, pass } = sessionsOnAClock();
    // 60 new addresses a minute, as many as the limit for everyone lets in, for 166 minutes: 9,960 of them.
    for (let minute = 0; minute < 166; minute++) {
      for (let index = 0; index < 60; index++) {
        pass(1_000);
        expect(tryAs(`10.${minute}.${index}.1`)).toEqual({ kind: "wrong" });
      }
      pass(1);
    }
    pass(60_000);
    for (let index = 0; index < 5; index++) tryAs("198.51.100.1");
    expect(tryAs("198.51.100.1")).toEqual(limitedFor("client"));
    // 55 more within its minute pass 10,000 addresses kept: the oldest go, not the one limited now.
    for (let index = 0; index < 55; index++) {
      pass(100);
      expect(tryAs(`10.200.${index}.1`)).toEqual({ kind: "wrong" });
    }
    expect(tryAs("198.51.100.1", TOKEN)).toEqual(limitedFor("client"));
  });
});

describe("the limit for everyone", () => {
  it("is 60 failed sign-ins a minute from all addresses together; then even the right token waits", () => {
    const { tryAs, pass } = sessionsOnAClock();
    for (let index = 0; index < 60; index++) {
      expect(tryAs(`10.0.0.${index}`)).toEqual({ kind: "wrong" });
      pass(500);
    }
    expect(tryAs("10.0.1.1")).toEqual({ kind: "limited", by: "everyone", retryAfterMs: 30_000 });
    expect(tryAs("192.0.2.1", TOKEN)).toEqual({ kind: "limited", by: "everyone", retryAfterMs: 30_000 });
    // The first failure is a minute old: one more try is let in.
    pass(30_000);
    expect(tryAs("192.0.2.1", TOKEN)).toMatchObject({ kind: "signed_in" });
  });

  it("counts failures only: right tokens from many addresses never hold anyone back", () => {
    const { tryAs } = sessionsOnAClock();
    for (let index = 0; index < 100; index++) expect(tryAs(`10.0.0.${index}`, TOKEN)).toMatchObject({ kind: "signed_in" });
    expect(tryAs("10.0.1.1")).toEqual({ kind: "wrong" });
  });
});
