// Where approval messages are, kept in the store for both chat adapters.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createApprovalRefs, KEEP_AFTER_EXPIRY_MS } from "../../../src/adapters/core/approval-refs.js";
import { silentLogger } from "../../../src/logger.js";
import { mapStore } from "../../support/map-store.js";

const Ref = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
const NOW = 1_700_000_000_000;
const pending = { runId: "run1", callId: "call_1", expiresAt: NOW + 60_000 };

describe("createApprovalRefs", () => {
  it("remembers where an approval message is until a day after the approval expires", async () => {
    const store = mapStore();
    const refs = createApprovalRefs({ store, logger: silentLogger, now: () => NOW, keyPrefix: "test:approval", schema: Ref });
    await refs.remember(pending, { channel: "C1", ts: "1.2" });
    expect(await refs.find("run1", "call_1")).toEqual({ channel: "C1", ts: "1.2" });
    expect(store.ttls.get("test:approval:run1:call_1")).toBe(60_000 + KEEP_AFTER_EXPIRY_MS);
    expect(await refs.find("run1", "call_2")).toBeUndefined();
  });

  it("keeps a record a day even when the approval already expired", async () => {
    const store = mapStore();
    const refs = createApprovalRefs({ store, logger: silentLogger, now: () => NOW + 10 * 60_000, keyPrefix: "test:approval", schema: Ref });
    await refs.remember(pending, { channel: "C1", ts: "1.2" });
    expect(store.ttls.get("test:approval:run1:call_1")).toBe(KEEP_AFTER_EXPIRY_MS);
  });

  it.each([
    ["a record of the wrong shape", { channel: "", ts: 5 }],
    ["a string", "C1/1.2"],
    ["null", null],
  ])("ignores %s found in the store", async (_, stored) => {
    const store = mapStore();
    store.data.set("test:approval:run1:call_1", stored);
    const refs = createApprovalRefs({ store, logger: silentLogger, now: () => NOW, keyPrefix: "test:approval", schema: Ref });
    expect(await refs.find("run1", "call_1")).toBeUndefined();
  });

  it("never throws when the store fails", async () => {
    const broken = { ...mapStore(), get: () => Promise.reject(new Error("down")), set: () => Promise.reject(new Error("down")) };
    const refs = createApprovalRefs({ store: broken, logger: silentLogger, now: () => NOW, keyPrefix: "test:approval", schema: Ref });
    await expect(refs.remember(pending, { channel: "C1", ts: "1.2" })).resolves.toBeUndefined();
    await expect(refs.find("run1", "call_1")).resolves.toBeUndefined();
  });
});
