// The explorer's one request listener for every /admin path: the route table, who may call what
// (pages send anyone else to the sign-in page, the API answers 401, a change needs the session's
// CSRF token or the Bearer header), and answers for junk: an unknown path 404, a wrong method 405,
// a bad body 400/415, a huge one 413, a handler that fails 500. It never throws at a request.
// Sign-in tries are counted by the client's address, behind TRUST_PROXY proxies the one they forward;
// the session cookie is Secure when the browser came over HTTPS or PUBLIC_URL is https.
import type { IncomingMessage, RequestListener } from "node:http";
import { requestSource } from "../request-source.js";
import { apiRun, apiRuns, apiUsage } from "./api.js";
import { EXPLORER_CSS, EXPLORER_ICON, EXPLORER_JS } from "./assets.js";
import type { ExplorerDeps, PageHandler } from "./explorer-deps.js";
import { json, readForm, redirect, send, text, type Reply } from "./http-io.js";
import { loginPage } from "./pages/login-page.js";
import { runsPage } from "./pages/runs-page.js";
import { replayPage, runPage } from "./pages/run-page.js";
import { usageCsv, usagePage } from "./pages/usage-page.js";
import { apiConversations, conversationsPage, deleteFact } from "./pages/conversations-page.js";
import { auditPage, settingsPage, toolsPage } from "./pages/system-pages.js";
import { createSessions, sameSecret, type Caller } from "./sessions.js";
import { BodyError } from "../../errors.js";

const FORM_LIMIT = 16 * 1024;
const LIMITED_TEXT = {
  client: "Too many tries from your address: wait a minute.",
  everyone: "Too many failed sign-ins from everyone in the last minute: wait a minute.",
} as const;
/** Whole seconds, at least one. */
const retryAfter = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));
const RUN_ID = "([\\w.:-]{1,120})";

interface Route {
  readonly method: "GET" | "POST";
  readonly path: RegExp;
  /** public: anyone; page: signed in (else to the sign-in page); api: signed in or Bearer (else 401). */
  readonly access: "public" | "page" | "api";
  readonly handle: PageHandler;
}

const asset =
  (type: "css" | "js" | "svg", body: string): PageHandler =>
  () => ({
    status: 200,
    type,
    body,
    headers: { "Cache-Control": "public, max-age=300" },
  });

export function createExplorerHandler(deps: ExplorerDeps): RequestListener {
  const clock = deps.clock ?? Date.now;
  const sessions = createSessions(deps.token, clock);
  const publicHttps = deps.publicUrl !== undefined && new URL(deps.publicUrl).protocol === "https:";

  const signIn: PageHandler = ({ request, form }) => {
    const source = requestSource(request, deps.trustedProxies);
    const result = sessions.signIn(source.address, form.get("token") ?? "");
    if (result.kind === "limited")
      return {
        ...loginPage(LIMITED_TEXT[result.by]),
        status: 429,
        headers: { "Retry-After": retryAfter(result.retryAfterMs) },
      };
    if (result.kind === "wrong") return { ...loginPage("That is not the admin token."), status: 401 };
    return redirect("/admin/", { "Set-Cookie": sessions.cookie(result.session, source.https || publicHttps) });
  };
  const signOut: PageHandler = ({ request, caller }) => {
    if (caller.kind === "session") sessions.signOut(caller.session.id);
    const secure = requestSource(request, deps.trustedProxies).https || publicHttps;
    return redirect("/admin/login", { "Set-Cookie": sessions.cookie(undefined, secure) });
  };

  const routes: readonly Route[] = [
    { method: "GET", path: /^\/admin\/login$/, access: "public", handle: () => loginPage() },
    { method: "POST", path: /^\/admin\/login$/, access: "public", handle: signIn },
    { method: "POST", path: /^\/admin\/logout$/, access: "page", handle: signOut },
    { method: "GET", path: /^\/admin\/assets\/explorer\.css$/, access: "public", handle: asset("css", EXPLORER_CSS) },
    { method: "GET", path: /^\/admin\/assets\/explorer\.js$/, access: "public", handle: asset("js", EXPLORER_JS) },
    { method: "GET", path: /^\/admin\/assets\/favicon\.svg$/, access: "public", handle: asset("svg", EXPLORER_ICON) },
    { method: "GET", path: /^\/admin$/, access: "public", handle: () => redirect("/admin/") },
    { method: "GET", path: /^\/admin\/$/, access: "page", handle: runsPage },
    { method: "GET", path: new RegExp(`^/admin/runs/${RUN_ID}$`), access: "page", handle: runPage },
    { method: "POST", path: new RegExp(`^/admin/runs/${RUN_ID}/replay$`), access: "page", handle: replayPage },
    { method: "GET", path: /^\/admin\/usage$/, access: "page", handle: usagePage },
    { method: "GET", path: /^\/admin\/usage\.csv$/, access: "page", handle: usageCsv },
    { method: "GET", path: /^\/admin\/conversations$/, access: "page", handle: conversationsPage },
    { method: "POST", path: /^\/admin\/conversations\/delete-fact$/, access: "page", handle: deleteFact },
    { method: "GET", path: /^\/admin\/audit$/, access: "page", handle: auditPage },
    { method: "GET", path: /^\/admin\/tools$/, access: "page", handle: toolsPage },
    { method: "GET", path: /^\/admin\/settings$/, access: "page", handle: settingsPage },
    { method: "GET", path: /^\/admin\/api\/runs$/, access: "api", handle: apiRuns },
    { method: "GET", path: new RegExp(`^/admin/api/runs/${RUN_ID}$`), access: "api", handle: apiRun },
    { method: "GET", path: /^\/admin\/api\/usage$/, access: "api", handle: apiUsage },
    { method: "GET", path: /^\/admin\/api\/conversations$/, access: "api", handle: apiConversations },
    { method: "GET", path: /^\/admin\/api\/conversations$/, access: "api", handle: apiConversations },
  ];

  async function answer(request: IncomingMessage): Promise<Reply> {
    let url: URL;
    try {
      url = new URL(request.url ?? "/", "http://explorer.invalid");
    } catch {
      return text(400, "That is not a path.");
    }
    const method = request.method === "HEAD" ? "GET" : request.method;
    const here = routes.filter((route) => route.path.test(url.pathname));
    if (here.length === 0) return text(404, "Not found.");
    const route = here.find((candidate) => candidate.method === method);
    if (!route) return text(405, "Method not allowed.", { Allow: [...new Set(here.map((candidate) => candidate.method))].join(", ") });
    const caller = sessions.callerOf(request, requestSource(request, deps.trustedProxies).address);
    if (caller.kind === "limited") {
      request.resume();
      return json(429, { error: LIMITED_TEXT[caller.by] }, { "Retry-After": retryAfter(caller.retryAfterMs) });
    }
    if (route.access !== "public" && caller.kind === "anonymous") {
      request.resume();
      if (route.access === "api" || route.method === "POST")
        return json(401, { error: "sign in, or send Authorization: Bearer <ADMIN_TOKEN>" });
      return redirect("/admin/login");
    }
    let form = new URLSearchParams();
    if (route.method === "POST") {
      form = await readForm(request, FORM_LIMIT);
      if (route.access !== "public" && !csrfHolds(caller, form.get("csrf") ?? ""))
        return text(403, "This form is out of date or came from elsewhere: reload the page and try again.");
    }
    const params = route.path.exec(url.pathname)!.slice(1);
    return route.handle({
      request,
      url,
      params,
      form,
      caller,
      csrf: caller.kind === "session" ? caller.session.csrf : "",
      deps,
      now: clock(),
    });
  }

  return (request, response) => {
    answer(request)
      .catch((error: unknown): Reply => {
        if (error instanceof BodyError) return text(error.status, error.message);
        deps.logger.warn({ err: error, path: request.url?.slice(0, 200) }, "an explorer request failed");
        return text(500, "Something went wrong here; the log has the details.");
      })
      .then((reply) => send(response, reply, request.method === "HEAD"))
      .catch((error: unknown) => deps.logger.warn({ err: error }, "an explorer answer could not be sent"));
  };
}

/** A Bearer caller needs no CSRF token (a browser never sends that header by itself); a session's form must carry its own. */
function csrfHolds(caller: Caller, given: string): boolean {
  if (caller.kind === "bearer") return true;
  return caller.kind === "session" && sameSecret(given, caller.session.csrf);
}
