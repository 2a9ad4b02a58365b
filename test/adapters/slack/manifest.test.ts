// manifest.yml must ask for what the adapter uses and no more, in the keys Slack offers new apps
// (the agent messaging experience, not the legacy assistant view).
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { repoRoot } from "../../support/repo-paths.js";
import { SLACK_BOT_SCOPES } from "../../../src/adapters/slack/install/bot-scopes.js";

const Manifest = z.object({
  features: z.object({
    app_home: z.object({ messages_tab_enabled: z.boolean(), messages_tab_read_only_enabled: z.boolean() }),
    agent_view: z.object({
      agent_description: z.string().min(1).max(300),
      suggested_prompts: z.array(z.object({ title: z.string(), message: z.string() })).max(4),
    }),
  }),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string()) }) }),
  settings: z.object({
    event_subscriptions: z.object({ bot_events: z.array(z.string()) }),
    interactivity: z.object({ is_enabled: z.boolean() }),
    socket_mode_enabled: z.boolean(),
  }),
});

const raw = parse(readFileSync(join(repoRoot, "manifest.yml"), "utf8")) as Record<string, Record<string, unknown>>;
const manifest = Manifest.parse(raw);

describe("manifest.yml", () => {
  it("subscribes to exactly the events the adapter handles", () => {
    expect(manifest.settings.event_subscriptions.bot_events.sort()).toEqual([
      "app_context_changed",
      "app_mention",
      "app_uninstalled",
      "message.channels",
      "message.groups",
      "message.im",
      "tokens_revoked",
    ]);
  });

  it("asks for the same bot scopes as an install through /slack/install (one list)", () => {
    expect(manifest.oauth_config.scopes.bot).toEqual([...SLACK_BOT_SCOPES]);
  });

  it("asks for exactly the bot scopes the features need, group DMs and private channels included", () => {
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual([
      "app_mentions:read",
      "assistant:write",
      "channels:history",
      "channels:read",
      "chat:write",
      "files:read",
      "files:write",
      "groups:history",
      "groups:read",
      "im:history",
      "im:read",
      "mpim:history",
      "mpim:read",
      "users:read",
    ]);
  });

  it("uses the agent messaging experience with suggested prompts, not the legacy assistant view", () => {
    expect(raw.features).not.toHaveProperty("assistant_view");
    expect(manifest.features.agent_view.suggested_prompts.length).toBeGreaterThan(0);
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_read_only_enabled).toBe(false);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });
});
