// Slack: on with a bot token, in Socket Mode (app token) or HTTP mode (signing secret, on PORT).
import { area, optionalPart } from "./area.js";
import { PORT } from "./ops.js";
import { httpUrl, idList, startingWith, text } from "./values.js";
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

export type SlackMode = { readonly kind: "socket"; readonly appToken: string } | { readonly kind: "http"; readonly signingSecret: string };

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
    approvers: variable("SLACK_APPROVERS", idList(), {
      default: "",
      meaning: "user ids (`U0123ABCD`, from a profile → ⋮ → **Copy member ID**) who may approve anyone's write actions",
    }),
  },
  // HTTP mode's events arrive on the process's port.
  uses: { port: PORT },
  /** The app token picks Socket Mode over HTTP; the rules refuse a token without either. */
  shape: ({ botToken, appToken, signingSecret, apiUrl, approvers }) => {
    const mode: SlackMode | undefined = appToken
      ? { kind: "socket", appToken }
      : signingSecret
        ? { kind: "http", signingSecret }
        : undefined;
    return optionalPart("slack", botToken && mode ? { botToken, mode, apiUrl, approvers } : undefined);
  },
});
