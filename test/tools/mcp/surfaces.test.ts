// `/tools` on the surfaces: the console command, Slack's `@bot tools`, and the text they show.
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../../src/adapters/console/console-commands.js";
import { approvalRequest, statusText } from "../../../src/adapters/console/console-text.js";
import { approvalText as discordApprovalText, progressText as discordProgressText } from "../../../src/adapters/discord/messages.js";
import { approvalBlocks } from "../../../src/adapters/slack/approval-message.js";
import { statusFor, taskUpdatesFor } from "../../../src/adapters/core/cards.js";
import { commandIn } from "../../../src/adapters/core/commands.js";
import { classifyMessage } from "../../../src/adapters/slack/incoming-message.js";
import { toolListText } from "../../../src/adapters/core/tool-list-text.js";
import { ScriptedModel } from "../../support/model-scripted.js";
import type { AgentEvent, PendingApproval } from "../../../src/contracts/types.js";
import { startConsole } from "../../support/console-harness.js";
import { originalPath, startDiscordHarness } from "../../support/discord-harness.js";

describe("/tools", () => {
  it("lists each MCP server with its state and why it is not up, then each tool with its effect after policy and its server", () => {
    const text = toolListText({
      tools: [
        { name: "calculator", effect: "read", up: true, afterPolicy: "read" },
        { name: "fs__read_text_file", server: "fs", effect: "read", up: true, afterPolicy: "read" },
        { name: "wiki__delete_page", server: "wiki", effect: "write", up: false, afterPolicy: "asks" },
      ],
      servers: [
        { name: "fs", state: { kind: "up", via: "stdio" }, tools: 1 },
        { name: "wiki", state: { kind: "down", reason: "HTTP 502 from wiki.example:443" }, tools: 1 },
        { name: "ghost", state: { kind: "failed", reason: "command not found: mcp-ghost" }, tools: 0 },
        { name: "slow", state: { kind: "starting" }, tools: 0 },
      ],
    });
    expect(text).toBe(
      [
        "MCP servers (4):",
        "- fs: up (stdio), 1 tool",
        "- wiki: down (HTTP 502 from wiki.example:443); retrying",
        "- ghost: failed to start (command not found: mcp-ghost); retrying",
        "- slow: starting",
        "",
        "Tools (3):",
        "- calculator: read, built in",
        "- fs__read_text_file: read, MCP server fs (up)",
        "- wiki__delete_page: asks (a write), MCP server wiki (down: not offered until it is back)",
        "asks: it waits for a person's Approve before it runs.",
      ].join("\n"),
    );
    expect(toolListText({ tools: [], servers: [] })).toBe("No tools are available.");
    expect(toolListText({ tools: [], servers: [{ name: "ghost", state: { kind: "failed", reason: "exit code 1" }, tools: 0 }] })).toBe(
      "MCP servers (1):\n- ghost: failed to start (exit code 1); retrying\n\nNo tools are available.",
    );
  });

  it("is a console command and a Slack command", () => {
    expect(parseCommand("/tools")).toEqual({ kind: "command", name: "tools", text: "" });
    expect(parseCommand("/tools all")).toMatchObject({ kind: "bad_command" });
    const body = {
      team_id: "T1",
      event_id: "Ev1",
      event: { type: "app_mention", user: "U0ALICE", text: "<@U0BOT> tools", ts: "1700000000.000100", channel: "C1" },
    };
    const classified = classifyMessage("mention", body, "U0BOT");
    expect(classified.kind === "message" && commandIn(classified.message.text)?.command.name).toBe("tools");
  });

  it("Discord answers /tools only to the person who asked, in a code block", async () => {
    const harness = await startDiscordHarness({ script: [] });
    try {
      const { fake, alice } = harness;
      const asked = fake.slashCommand("tools", alice);
      const deferred = await fake.waitForCall("POST", new RegExp(`/interactions/${asked.id}/`));
      expect(deferred.body).toMatchObject({ type: 5, data: { flags: 64 } });
      const answer = await fake.waitForCall("PATCH", originalPath(fake, asked.token));
      expect(answer.body.content).toMatch(/^```\nTools \(\d+\):\n- calculator: read, built in\n[\s\S]*```$/);
    } finally {
      await harness.close();
    }
  });

  it("the console shows the list", async () => {
    const console = await startConsole({ model: new ScriptedModel([]) });
    try {
      console.type("/tools");
      await console.waitFor("- calculator: read, built in");
    } finally {
      await console.close();
    }
  });
});

describe("approval requests for MCP tools", () => {
  const pending: PendingApproval = {
    runId: "run1",
    callId: "call_1",
    tool: "fs__write_file",
    source: "MCP server fs, tool write_file (readOnlyHint: false, destructiveHint: true)",
    args: { path: "/srv/docs/a.txt", content: "hi" },
    requester: { id: "U0ALICE", name: "alice" },
    origin: { surface: "slack", conversationKey: "slack:T1:C1:1.0", requester: { id: "U0ALICE" }, place: {} },
    expiresAt: Date.UTC(2026, 0, 1),
  };

  it("show the server, the tool and its hints next to the arguments on every surface", () => {
    expect(JSON.stringify(approvalBlocks(pending, { users: [], roles: [] }))).toContain(
      "MCP server fs, tool write_file (readOnlyHint: false, destructiveHint: true)",
    );
    expect(discordApprovalText(pending, { users: [], roles: [] })).toContain(
      "From `MCP server fs, tool write_file (readOnlyHint: false, destructiveHint: true)`",
    );
    expect(approvalRequest(pending)).toContain("(MCP server fs, tool write_file (readOnlyHint: false, destructiveHint: true))");
  });
});

describe("progress of a running MCP call", () => {
  const event: AgentEvent = {
    type: "tool_progress",
    runId: "run1",
    step: 2,
    call: { id: "call_1", name: "everything__trigger-long-running-operation", arguments: "{}" },
    detail: "2/5",
  };

  it("shows as the running call's detail on every surface", () => {
    expect(taskUpdatesFor(event)).toEqual([
      { id: "call_1", title: expect.stringContaining("everything__trigger-long-running-operation"), status: "in_progress", details: "2/5" },
    ]);
    expect(discordProgressText(statusFor(event)!)).toBe("⏳ Step 2: running `everything__trigger-long-running-operation`… 2/5");
    expect(statusText(event)).toBe("  … step 2: running everything__trigger-long-running-operation: 2/5");
  });
});
