// `/tools` shows what a call may do here once every layer of policy has spoken: TOOL_POLICY, the
// provider's own say (an MCP server's `approval`), and the channel's settings-file lists.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolPolicy } from "../../src/agent/tools/tool-policy.js";
import type { TaskOrigin, Tool } from "../../src/contracts/types.js";
import { runSettingsFor } from "../../src/governance/channel-settings.js";
import { SettingsSchema } from "../../src/governance/settings-schema.js";
import { toolListing } from "../../src/runs/service/tool-listing.js";
import { toolListText } from "../../src/adapters/core/tool-list-text.js";
import { startConsole } from "../support/console-harness.js";
import { ScriptedModel } from "../support/model-scripted.js";

const tool = (name: string, effect: "read" | "write", extra: Partial<Tool> = {}): Tool => ({
  name,
  description: name,
  schema: z.object({}),
  effect,
  execute: async () => "ok",
  ...extra,
});

const origin: TaskOrigin = {
  surface: "slack",
  conversationKey: "slack:T1:C1:1.0",
  requester: { id: "U1" },
  place: {},
  scope: { workspace: "T1", channel: "C1", dm: false, roles: [] },
};

describe("the tool list after policy", () => {
  const own = [
    tool("calculator", "read"),
    tool("post_note", "write"),
    tool("send_email", "write"),
    tool("lookup", "read"),
    tool("dm_only", "read", { availableTo: (at) => at.place.dm === "yes" }),
  ];
  const catalog = {
    tools: [
      { name: "wiki__search", server: "wiki", effect: "read" as const, approval: "asks" as const, up: true },
      { name: "wiki__edit", server: "wiki", effect: "write" as const, approval: "runs without asking" as const, up: false },
    ],
    servers: [{ name: "wiki", state: { kind: "down" as const, reason: "HTTP 502" }, tools: 2 }],
  };
  const policy = createToolPolicy([
    { pattern: "post_note", policy: "allow" },
    { pattern: "lookup", policy: "approve" },
    { pattern: "send_*", policy: "deny" },
  ]);

  it("gives each tool its effect: read, asks, runs without asking or denied, the strictest layer winning", () => {
    const list = toolListing({ own, catalog, policy });
    expect(Object.fromEntries(list.tools.map((entry) => [entry.name, entry.afterPolicy]))).toEqual({
      calculator: "read",
      post_note: "runs without asking",
      send_email: "denied",
      lookup: "asks",
      dm_only: "read",
      wiki__search: "asks",
      wiki__edit: "runs without asking",
    });
    expect(list.servers).toEqual(catalog.servers);
  });

  it("in a conversation, a tool its channel's settings leave out, or one not for this place, is denied", () => {
    const settings = SettingsSchema.parse({ channels: { C1: { tools: { deny: ["wiki__*"] } } } });
    const list = toolListing({ own, catalog, policy, at: { origin, settings: runSettingsFor(settings, { channel: "C1" }) } });
    expect(Object.fromEntries(list.tools.map((entry) => [entry.name, entry.afterPolicy]))).toMatchObject({
      calculator: "read",
      post_note: "runs without asking",
      dm_only: "denied",
      wiki__search: "denied",
      wiki__edit: "denied",
    });
  });

  it("says each effect on its line, and what the ones shown mean", () => {
    const text = toolListText(toolListing({ own: own.slice(0, 4), catalog, policy }));
    expect(text).toContain("- calculator: read, built in\n");
    expect(text).toContain("- post_note: runs without asking (a write), built in\n");
    expect(text).toContain("- send_email: denied (a write), built in\n");
    expect(text).toContain("- lookup: asks (a read), built in\n");
    expect(text).toContain("- wiki__edit: runs without asking (a write), MCP server wiki (down: not offered until it is back)\n");
    expect(text.split("\n").slice(-3)).toEqual([
      "asks: it waits for a person's Approve before it runs.",
      "runs without asking: a write the bot's policy lets through.",
      "denied: not offered here (TOOL_POLICY or this channel's settings).",
    ]);
    expect(toolListText(toolListing({ own: own.slice(0, 1), policy }))).toBe("Tools (1):\n- calculator: read, built in");
  });

  it("the console's /tools shows TOOL_POLICY's effects", async () => {
    const console = await startConsole({ model: new ScriptedModel([]), env: { TOOL_POLICY: "current_time=deny,calculator=approve" } });
    try {
      console.type("/tools");
      await console.waitFor("- calculator: asks (a read), built in");
      await console.waitFor("- current_time: denied (a read), built in");
    } finally {
      await console.close();
    }
  });
});
