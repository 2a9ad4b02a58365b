// The card's origin lines stay within each platform's limits whatever the names in them: many
// origins, long names, characters each surface escapes (issue 39, item 2).
import { describe, expect, it } from "vitest";
import { originNotes } from "../../../src/adapters/core/origin-lines.js";
import { approvalBlocks } from "../../../src/adapters/slack/approval-message.js";
import { approvalText } from "../../../src/adapters/discord/messages.js";
import type { WriteOrigin } from "../../../src/contracts/provenance.js";
import type { PendingApproval } from "../../../src/contracts/types.js";

const noDeciders = { users: [], roles: [] };

function pending(origins: readonly WriteOrigin[], needs: "warning" | "other_approver" = "warning"): PendingApproval {
  return {
    runId: "run-1",
    callId: "call-1",
    tool: "post_message",
    args: { channel: "#x", text: "y".repeat(5_000) },
    requester: { id: "U1", name: "alice" },
    origin: { surface: "slack", conversationKey: "slack:T1:C1", requester: { id: "U1", name: "alice" }, place: {} },
    expiresAt: 1_800_000_000_000,
    provenance: { origins, needs },
  };
}

const hostile = (index: number): WriteOrigin => ({
  argument: `${index}${"<&>".repeat(200)}`,
  role: index % 2 === 0 ? "destination" : "text",
  source: { kind: "person", author: { id: "U9", name: `<!channel>&${"<".repeat(200)}` }, channel: `#${">".repeat(200)}` },
  match: "whole",
});

describe("origin notes", () => {
  it("lists a few origins, bounded, and counts the rest", () => {
    const notes = originNotes(pending(Array.from({ length: 20 }, (_, index) => hostile(index))))!;
    expect(notes.lines).toHaveLength(5);
    expect(notes.lines.at(-1)).toBe("…and 16 more");
    for (const line of notes.lines) expect(line.length).toBeLessThanOrEqual(200);
  });

  it("says who must approve under UNTRUSTED_WRITES=approver", () => {
    const notes = originNotes(pending([hostile(0)], "other_approver"))!;
    expect(notes.warning).toBe(
      "Where this write goes was named by content someone other than @alice wrote, not by their request. An approver other than @alice must approve it.",
    );
  });

  it("none for a write without provenance", () => {
    const { provenance: _, ...own } = pending([hostile(0)]);
    expect(originNotes(own)).toBeUndefined();
  });
});

describe("the cards with hostile origins", () => {
  const many = pending(Array.from({ length: 20 }, (_, index) => hostile(index)));

  it("Slack: every section within Block Kit's 3,000 characters, mentions neutralised", () => {
    const blocks = approvalBlocks(many, noDeciders) as Array<{ text?: { text: string } }>;
    const origins = blocks.find((block) => block.text?.text.startsWith(":warning:"))!;
    expect(origins.text!.text).toContain("• ");
    for (const block of blocks) expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3_000);
    expect(JSON.stringify(blocks)).not.toContain("<!channel>");
  });

  it("Discord: one message of at most 2,000 characters that still ends with who may decide", () => {
    const text = approvalText(many, noDeciders);
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text).toContain("> ⚠️ **Where this write goes was named");
    expect(text).toMatch(/can decide\. Expires <t:\d+:R>\.$/);
  });
});
