// Installing the app in a workspace through Slack's OAuth, with @slack/oauth's InstallProvider (the
// installer Bolt itself uses): GET /slack/install shows the "Add to Slack" page and sets the
// state's cookie; GET /slack/oauth_redirect checks the state (cookie and store, once), exchanges the
// code (oauth.v2.access through SLACK_API_URL when set, as every Slack call), asks auth.test for the
// bot's id, and stores the installation. Served on the process's port in HTTP and Socket Mode alike,
// at PUBLIC_URL. Requests are untrusted: each answers with a short page, and nothing here throws.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { type CodedError, ErrorCode, type Installation, InstallProvider, type StateStore } from "@slack/oauth";
import type { Logger as SlackLogger } from "@slack/bolt";
import type { Logger } from "../../../logger.js";
import { slackErrorCode } from "../slack-api.js";
import { SLACK_BOT_SCOPES } from "./bot-scopes.js";
import type { SlackInstallations } from "./installation-store.js";
import { addToSlackPage, sendPage } from "./install-pages.js";
import { INSTALL_STATE_TTL_MS } from "./install-states.js";
import { installationKey } from "./workspace-ref.js";

export const SLACK_INSTALL_PATH = "/slack/install";
export const SLACK_REDIRECT_PATH = "/slack/oauth_redirect";

export interface InstallRoutesDeps {
  readonly clientId: string;
  readonly clientSecret: string;
  /** PUBLIC_URL: Slack sends the person back to its /slack/oauth_redirect. */
  readonly publicUrl: string;
  /** SLACK_API_URL, when set. */
  readonly apiUrl?: string;
  readonly installations: SlackInstallations;
  readonly states: StateStore;
  readonly logger: Logger;
  readonly slackLogger: SlackLogger;
  /** Stored, before the person is told: a workspace that comes back starts clean (its earlier data's deletion is carried out). */
  readonly installed?: (key: string) => Promise<void>;
}

/** Where Slack sends the person back: the app's Redirect URL (manifest `oauth_config.redirect_urls`). */
export function redirectUrlOf(publicUrl: string): string {
  return new URL(SLACK_REDIRECT_PATH.slice(1), publicUrl.endsWith("/") ? publicUrl : `${publicUrl}/`).toString();
}

const nameOf = (installation: Installation) =>
  installation.isEnterpriseInstall
    ? (installation.enterprise?.name ?? installation.enterprise?.id)
    : (installation.team?.name ?? installation.team?.id);

/** Pure: what the person is told when the install did not finish (status, lines). */
export function failureText(error: CodedError, cancelled: boolean, installUrl: string): { status: number; lines: string[] } {
  const again = `Nothing was installed. To try again, open ${installUrl}.`;
  if (cancelled) return { status: 400, lines: ["The install was cancelled in Slack.", again] };
  if (error.code === ErrorCode.InvalidStateError || error.code === ErrorCode.MissingStateError)
    return {
      status: 400,
      lines: ["This install link was already used, has expired, or was opened in another browser than the one that started it.", again],
    };
  if (error.code === ErrorCode.MissingCodeError) return { status: 400, lines: ["Slack sent no authorization code back.", again] };
  const code = slackErrorCode(error);
  return { status: 502, lines: [`Slack did not complete the install${code ? ` (it answered "${code}")` : ""}.`, again] };
}

export function slackInstallListener(deps: InstallRoutesDeps): RequestListener {
  const { logger } = deps;
  const redirectUri = redirectUrlOf(deps.publicUrl);
  const installUrl = new URL(SLACK_INSTALL_PATH.slice(1), deps.publicUrl.endsWith("/") ? deps.publicUrl : `${deps.publicUrl}/`).toString();
  const installer = new InstallProvider({
    clientId: deps.clientId,
    clientSecret: deps.clientSecret,
    installationStore: deps.installations,
    stateStore: deps.states,
    stateCookieExpirationSeconds: INSTALL_STATE_TTL_MS / 1000,
    installUrlOptions: { scopes: [...SLACK_BOT_SCOPES], redirectUri },
    renderHtmlForInstallPath: addToSlackPage,
    logger: deps.slackLogger,
    // A code is good for one exchange: a lost answer is not asked again with it.
    clientOptions: { ...(deps.apiUrl ? { slackApiUrl: deps.apiUrl } : {}), retryConfig: { retries: 0 } },
  });

  const callback = (request: IncomingMessage, response: ServerResponse) =>
    installer.handleCallback(request, response, {
      async afterInstallation(installation, _options, _request, answer) {
        if (installation.bot) return true;
        sendPage(answer, 400, "Not installed", [
          "Slack granted no bot token (the bot scopes were not granted).",
          `To try again, open ${installUrl}.`,
        ]);
        return false;
      },
      async successAsync(installation, _options, _request, answer) {
        const name = nameOf(installation) ?? "the workspace";
        const key = installationKey({
          orgInstall: installation.isEnterpriseInstall === true,
          ...(installation.team?.id ? { team: installation.team.id } : {}),
          ...(installation.enterprise?.id ? { enterprise: installation.enterprise.id } : {}),
        });
        if (key) await deps.installed?.(key);
        logger.info(
          { team: installation.team?.id, enterprise: installation.enterprise?.id, orgInstall: installation.isEnterpriseInstall === true },
          "the app was installed in a workspace",
        );
        sendPage(answer, 200, "Installed", [
          `The bot is installed in ${name}.`,
          "Mention it in a channel it was invited to, or write to it in Slack's Messages tab.",
        ]);
      },
      async failureAsync(error, _options, request, answer) {
        const cancelled = new URL(request.url ?? "/", "http://bot.invalid").searchParams.get("error") === "access_denied";
        logger.warn({ code: error.code, slackError: slackErrorCode(error), cancelled }, "an install did not finish");
        const { status, lines } = failureText(error, cancelled, installUrl);
        sendPage(answer, status, "Not installed", lines);
      },
    });

  return (request, response) => {
    const path = new URL(request.url ?? "/", "http://bot.invalid").pathname;
    if (request.method !== "GET") return void response.writeHead(405, { Allow: "GET" }).end();
    const work =
      path === SLACK_INSTALL_PATH
        ? installer.handleInstallPath(request, response)
        : path === SLACK_REDIRECT_PATH
          ? callback(request, response)
          : Promise.resolve(sendPage(response, 404, "Not found", ["Nothing here."]));
    work.catch((error: unknown) => {
      logger.error({ err: error, path }, "an install page failed");
      sendPage(response, 500, "Something went wrong", ["Nothing was installed; try again."]);
    });
  };
}
