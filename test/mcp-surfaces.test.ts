// `/tools` on the surfaces: the console command, Slack's `@bot tools`, and the text they show.
import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/adapters/console/console-commands.js";
import { classifyMessage } from "../src/adapters/slack/incoming-message.js";
import { toolListText } from "../src/adapters/tool-list-text.js";
import { ScriptedModel } from "../src/agent/model-scripted.js";
import { startConsole } from "./support/console-harness.js";

describe("/tools", () => {
  it("lists each tool with its server, read or write, and whether the server is up", () => {
    const text = toolListText([
      { name: "calculator", effect: "read", up: true },
      { name: "fs__read_text_file", server: "fs", effect: "read", up: true },
      { name: "wiki__delete_page", server: "wiki", effect: "write", up: false },
    ]);
    expect(text).toBe(
      [
        "Tools (3):",
        "- calculator: read, built in",
        "- fs__read_text_file: read, MCP server fs (up)",
        "- wiki__delete_page: write, MCP server wiki (down: not offered until it is back)",
        "A write asks for approval before it runs (unless the bot's policy says otherwise).",
      ].join("\n"),
    );
    expect(toolListText([])).toBe("No tools are available.");
  });

  it("is a console command and a Slack command", () => {
    expect(parseCommand("/tools")).toEqual({ kind: "tools" });
    expect(parseCommand("/tools all")).toMatchObject({ kind: "bad_command" });
    const body = { team_id: "T1", event_id: "Ev1", event: { type: "app_mention", user: "U0ALICE", text: "<@U0BOT> tools", ts: "1700000000.000100", channel: "C1" } };
    expect(classifyMessage("mention", body, "U0BOT").kind).toBe("tools");
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
