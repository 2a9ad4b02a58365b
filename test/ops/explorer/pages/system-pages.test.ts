// The audit page as an admin reads it: a run's entry links to its run page; a schedule's own
// entry (made, paused, cancelled) names the schedule and links nowhere, since it has no run page.
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../../src/governance/audit-log.js";
import type { ExplorerDeps, PageRequest } from "../../../../src/ops/explorer/explorer-deps.js";
import { auditPage } from "../../../../src/ops/explorer/pages/system-pages.js";

const base = {
  seq: 1,
  at: Date.UTC(2027, 0, 18, 8),
  conversationKey: "console:local",
  surface: "console",
  place: {},
  requester: { id: "console", name: "root" },
  process: { pid: 7, hostname: "host" },
} as const;

describe("the audit page", () => {
  it("links a run's entry to its run, and a schedule's own entry to nothing", async () => {
    const entries: AuditEntry[] = [
      { ...base, kind: "approval_requested", runId: "r1", tool: "post_note" },
      { ...base, seq: 2, kind: "schedule_created", runId: "sch_ab12cd34", schedule: { id: "sch_ab12cd34" } },
    ] as AuditEntry[];
    const deps = { audit: { list: async () => entries } } as unknown as ExplorerDeps;
    const reply = await auditPage({ deps, csrf: "" } as unknown as PageRequest);
    if (reply.type !== "html") throw new Error("not a page");
    expect(reply.body).toContain('<a href="/admin/runs/r1">r1</a>');
    expect(reply.body).not.toContain("/admin/runs/sch_");
    expect(reply.body).toContain("schedule sch_ab12cd34");
  });
});
