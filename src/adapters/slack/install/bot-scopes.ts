// The bot scopes the app asks for, in one list: an install through /slack/install asks for these,
// and test/adapters/slack/manifest.test.ts holds manifest.yml's `oauth_config.scopes.bot` to the
// same list, so a workspace installed either way grants the same.
export const SLACK_BOT_SCOPES = [
  "app_mentions:read",
  "assistant:write",
  "chat:write",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
  "channels:read",
  "groups:read",
  "im:read",
  "mpim:read",
  "users:read",
  "files:read",
  "files:write",
] as const;
