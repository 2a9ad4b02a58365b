// manifest.yml must ask for what the adapter uses and no more.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const manifest = readFileSync(new URL("../manifest.yml", import.meta.url), "utf8");

/** The "- item" lines right under `key:` (comments skipped). */
function listUnder(key: string): string[] {
  const lines = manifest.split("\n");
  const start = lines.findIndex((line) => line.trim() === `${key}:`);
  expect(start, `${key} is in manifest.yml`).toBeGreaterThanOrEqual(0);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#")) continue;
    if (!trimmed.startsWith("- ")) break;
    items.push(trimmed.slice(2));
  }
  return items;
}

describe("manifest.yml", () => {
  it("subscribes to exactly the events the adapter handles", () => {
    expect(listUnder("bot_events").sort()).toEqual(["app_mention", "assistant_thread_started", "message.im"]);
  });

  it("asks for exactly the bot scopes the features need", () => {
    expect(listUnder("bot").sort()).toEqual(["app_mentions:read", "assistant:write", "channels:history", "channels:read", "chat:write", "groups:history", "im:history"]);
  });

  it("turns on interactivity, Socket Mode, the Messages tab and the agent view", () => {
    expect(manifest).toMatch(/interactivity:\n\s+is_enabled: true/);
    expect(manifest).toMatch(/socket_mode_enabled: true/);
    expect(manifest).toMatch(/messages_tab_enabled: true/);
    expect(manifest).toMatch(/assistant_view:\n(\s+#.*\n)?\s+assistant_description: \S/);
  });
});
