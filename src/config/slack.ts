// Slack: on with a bot token (one workspace) or with the app's client id and secret (installed
// in several workspaces through Slack's OAuth, coming back to PUBLIC_URL), in Socket Mode (app
// token) or HTTP mode (signing secret, on PORT).
import { area, optionalPart } from "./area.js";
import { PORT } from "./ops.js";
import { PUBLIC_URL } from "./public-address.js";
import { httpUrl, idList, nonBlank, startingWith, text, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

export const SLACK_BOT_TOKEN = variable("SLACK_BOT_TOKEN", startingWith("xoxb-", "expects a bot token starting with xoxb-"), {
  secret: true,
  meaning: "bot token (**OAuth & Permissions** → **Bot User OAuth Token**); with it the Slack surface starts",
});
export const SLACK_APP_TOKEN = variable("SLACK_APP_TOKEN", startingWith("xapp-", "expects an app-level token starting with xapp-"), {
  secret: true,
  meaning: "app-level token with the `connections:write` scope: Socket Mode",
});
export const SLACK_SIGNING_SECRET = variable("SLACK_SIGNING_SECRET", text(), {
  secret: true,
  meaning: "HTTP mode (used when no app token is set): events arrive on `PORT`",
});

export const SLACK_CLIENT_ID = variable("SLACK_CLIENT_ID", nonBlank("expects the app's Client ID (Basic Information → App Credentials)"), {
  meaning:
    "the app's **Client ID** (**Basic Information** → **App Credentials**): with `SLACK_CLIENT_SECRET` and `PUBLIC_URL`, and without `SLACK_BOT_TOKEN`, the bot is installed in workspaces through `/slack/install` (see [Distribute to several workspaces](slack.md#distribute-to-several-workspaces))",
});
export const SLACK_CLIENT_SECRET = variable("SLACK_CLIENT_SECRET", text(), {
  secret: true,
  meaning: "the app's **Client Secret**, beside `SLACK_CLIENT_ID`",
});

export type SlackMode = { readonly kind: "socket"; readonly appToken: string } | { readonly kind: "http"; readonly signingSecret: string };

/** One workspace with a token from the environment, or every workspace that installed the app (tokens in the store). */
export type SlackAuth =
  | { readonly kind: "token"; readonly botToken: string }
  | { readonly kind: "install"; readonly clientId: string; readonly clientSecret: string; readonly publicUrl: string };

export const slackArea = area({
  title: "Slack",
  about: "Set up the app first (see [Slack](slack.md)). Slack and Discord can run in the same process: set both surfaces' variables.",
  variables: {
    botToken: SLACK_BOT_TOKEN,
    appToken: SLACK_APP_TOKEN,
    signingSecret: SLACK_SIGNING_SECRET,
    apiUrl: variable("SLACK_API_URL", httpUrl(), {
      shownDefault: "Slack's",
      meaning: "Web API base URL, for a proxy (the tests point it at a fake Slack); its origin may serve files too (see [files](files.md))",
    }),
    clientId: SLACK_CLIENT_ID,
    clientSecret: SLACK_CLIENT_SECRET,
    uninstallRetentionDays: variable("UNINSTALL_RETENTION_DAYS", wholeNumber(0, 3_650), {
      default: 0,
      meaning:
        "when a workspace uninstalls the app (or a Discord server removes the bot), its data is deleted after this many days; 0: at once, and once more after what a run working then writes as it ends (the audit keeps one line that it was removed)",
    }),
    approvers: variable("SLACK_APPROVERS", idList(), {
      default: "",
      meaning: "user ids (`U0123ABCD`, from a profile → ⋮ → **Copy member ID**) who may approve anyone's write actions",
    }),
  },
  // HTTP mode's events arrive on the process's port; an install comes back to the public address.
  uses: { port: PORT, publicUrl: PUBLIC_URL },
  /** The app token picks Socket Mode over HTTP; the rules refuse a token without either, and an install without PUBLIC_URL. */
  shape: ({ botToken, appToken, signingSecret, apiUrl, approvers, clientId, clientSecret, publicUrl, uninstallRetentionDays }) => {
    const mode: SlackMode | undefined = appToken
      ? { kind: "socket", appToken }
      : signingSecret
        ? { kind: "http", signingSecret }
        : undefined;
    const auth: SlackAuth | undefined = botToken
      ? { kind: "token", botToken }
      : clientId && clientSecret && publicUrl
        ? { kind: "install", clientId, clientSecret, publicUrl }
        : undefined;
    return {
      ...optionalPart("slack", auth && mode ? { auth, mode, apiUrl, approvers } : undefined),
      uninstallRetentionDays,
    };
  },
});
