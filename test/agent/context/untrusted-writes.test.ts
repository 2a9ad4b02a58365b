// UNTRUSTED_WRITES as a decision: where a write's arguments came from, and the mode, give the
// write's fate (issue 39, item 2).
import { describe, expect, it } from "vitest";
import { MAX_ORIGINS, originsReason, refusedWriteObservation, untrustedWriteVerdict } from "../../../src/agent/context/untrusted-writes.js";
import type { WriteOrigin } from "../../../src/contracts/provenance.js";

const mallory = { kind: "person", author: { id: "U9", name: "mallory" }, channel: "#general" } as const;
const destination: WriteOrigin = { argument: "channel", role: "destination", source: mallory, match: "whole" };
const copied: WriteOrigin = { argument: "text", role: "text", source: { kind: "file", name: "report.pdf" }, match: "part" };

describe("untrustedWriteVerdict", () => {
  it("leaves a write whose arguments are all the requester's own to the usual approval, in every mode", () => {
    for (const mode of ["warn", "approver", "deny"] as const) expect(untrustedWriteVerdict([], mode)).toEqual({ kind: "own" });
  });

  it("warn: asks with a warning, whatever came from elsewhere", () => {
    expect(untrustedWriteVerdict([destination, copied], "warn")).toEqual({
      kind: "ask",
      provenance: { origins: [destination, copied], needs: "warning" },
    });
  });

  it("approver: a destination from elsewhere needs another approver; copied text alone is a warning", () => {
    expect(untrustedWriteVerdict([copied, destination], "approver")).toEqual({
      kind: "ask",
      provenance: { origins: [destination, copied], needs: "other_approver" },
    });
    expect(untrustedWriteVerdict([copied], "approver")).toEqual({ kind: "ask", provenance: { origins: [copied], needs: "warning" } });
  });

  it("deny: a destination from elsewhere is refused without asking; copied text alone still asks with a warning", () => {
    expect(untrustedWriteVerdict([copied, destination], "deny")).toEqual({ kind: "refuse", origins: [destination, copied] });
    expect(untrustedWriteVerdict([copied], "deny")).toEqual({ kind: "ask", provenance: { origins: [copied], needs: "warning" } });
  });

  it("keeps at most MAX_ORIGINS origins, destinations first", () => {
    const many = [...Array.from({ length: 30 }, () => copied), destination];
    const verdict = untrustedWriteVerdict(many, "warn");
    if (verdict.kind !== "ask") throw new Error("expected a question");
    expect(verdict.provenance.origins).toHaveLength(MAX_ORIGINS);
    expect(verdict.provenance.origins[0]).toEqual(destination);
  });
});

describe("what the audit and the model read of a refused write", () => {
  it("names the sources and the arguments, never the values", () => {
    expect(originsReason([destination, copied, destination])).toBe(
      "channel: destination named in a message by @mallory in #general; text: text copied in large part from the file “report.pdf”",
    );
    const observation = refusedWriteObservation("post_message", [destination]);
    expect(observation).toContain("post_message was not run");
    expect(observation).toContain("a message by @mallory in #general");
    expect(observation).toContain("UNTRUSTED_WRITES=deny");
  });
});
