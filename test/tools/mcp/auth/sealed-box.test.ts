// Secrets at rest and the Connect link's state, alone: a sealed value opens only with its key and
// under the store key it was written for; a state is refused when altered, expired or used.
import { describe, expect, it } from "vitest";
import { createConnectStates } from "../../../../src/tools/mcp/auth/connect-state.js";
import { createSealedBox } from "../../../../src/tools/mcp/auth/sealed-box.js";
import { mapStore } from "../../../support/map-store.js";

const KEY = Buffer.from("a-test-approval-secret-0123456789");
const grant = { owner: { surface: "slack", workspace: "T1", person: "U1" }, server: "docs", runId: "run_1", callId: "call_1" };

describe("the sealed box", () => {
  it("opens what it sealed, and nothing sealed under another store key or with another key", async () => {
    const box = createSealedBox(async () => KEY);
    const sealed = await box.seal({ access_token: "at-secret" }, "mcp:oauth:connection:a");
    expect(sealed).not.toContain("at-secret");
    expect(await box.open(sealed, "mcp:oauth:connection:a")).toEqual({ access_token: "at-secret" });
    expect(await box.open(sealed, "mcp:oauth:connection:b")).toBeUndefined();
    expect(await createSealedBox(async () => Buffer.from("another-key-0123456789")).open(sealed, "mcp:oauth:connection:a")).toBeUndefined();
    const [version, iv, body] = sealed.split(".");
    const flipped = `${version}.${iv}.${body!.slice(0, -2)}${body!.endsWith("A") ? "B" : "A"}${body!.slice(-1)}`;
    expect(await box.open(flipped, "mcp:oauth:connection:a")).toBeUndefined();
    expect(await box.open("not sealed", "mcp:oauth:connection:a")).toBeUndefined();
    expect(await box.open(42, "mcp:oauth:connection:a")).toBeUndefined();
  });

  it("seals the same value differently each time", async () => {
    const box = createSealedBox(async () => KEY);
    expect(await box.seal("x", "k")).not.toBe(await box.seal("x", "k"));
  });
});

describe("the Connect link's state", () => {
  it("is valid until it expires, is used once, and is refused when altered or signed with another key", async () => {
    let now = 1_000_000;
    const store = mapStore();
    const states = createConnectStates(
      store,
      async () => KEY,
      () => now,
    );
    const { text, state } = await states.issue(grant);
    expect(state.expiresAt).toBe(now + 10 * 60_000);
    expect(await states.check(text)).toEqual({ kind: "ok", state });
    expect(
      await createConnectStates(
        store,
        async () => Buffer.from("another-key-0123456789"),
        () => now,
      ).check(text),
    ).toEqual({
      kind: "invalid",
    });
    const [payload, mac] = text.split(".");
    const altered = Buffer.from(JSON.stringify({ ...state, owner: { ...state.owner, person: "U2" } })).toString("base64url");
    expect(await states.check(`${altered}.${mac}`)).toEqual({ kind: "invalid" });
    expect(await states.check(payload!)).toEqual({ kind: "invalid" });
    now = state.expiresAt;
    expect(await states.check(text)).toEqual({ kind: "expired", state });
    now = state.expiresAt - 1;
    expect(await states.claim(state)).toBe(true);
    expect(await states.claim(state)).toBe(false);
    expect(await states.check(text)).toEqual({ kind: "used", state });
  });
});
