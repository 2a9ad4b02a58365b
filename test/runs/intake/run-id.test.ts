import { describe, expect, it } from "vitest";
import { newRunId } from "../../../src/runs/intake/run-id.js";

describe("run ids", () => {
  it("are 8 base64url characters, and distinct across several refills of their pool", () => {
    const ids = Array.from({ length: 5_000 }, () => newRunId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
