// The run explorer over HTTP against the real product: off without ADMIN_TOKEN (every /admin
// path 404, never reaching Slack), sign-in and its limits, sessions and CSRF, the Bearer API,
// strict headers, escaping, and junk requests answered without harm.
import { connect } from "node:net";
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp } from "../../../src/app.js";
import { CONTENT_SECURITY_POLICY } from "../../../src/ops/explorer/http-io.js";
import { ADMIN_TOKEN, signIn, startExplorerProduct, untilRuns, type ExplorerProduct } from "../../support/explorer-harness.js";
import { explorerModel } from "../../support/explorer-model.js";
import { freePort } from "../../support/free-port.js";
import { temporaryFolder } from "../../support/temporary-folder.js";

const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
let product: ExplorerProduct;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  product = await startExplorerProduct(explorerModel);
  await product.ask("hello <script>window.__xss = 1</script> there", "Answer to: hello");
  await product.ask("please loop", "stopped");
  await product.ask("add two and three", "It is 5.");
  await untilRuns(product.base, 3);
  session = await signIn(product.base);
}, 60_000);
afterAll(async () => product.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${product.base}${path}`, { headers, redirect: "manual" });
const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${product.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
    redirect: "manual",
  });

describe("signing in", () => {
  it("is a form with one field named token; the right token gives a session cookie, never the token", async () => {
    const form = await (await get("/admin/login")).text();
    expect(form).toMatch(/<input type="password" name="token"/);
    const response = await post("/admin/login", { token: ADMIN_TOKEN });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/admin/");
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^admin_session=[\w-]{40,}; Max-Age=\d+; Path=\/admin; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(ADMIN_TOKEN);
  });

  it("refuses a wrong token with 401, and more than 5 tries a minute from one client with 429", async () => {
    const fresh = await startExplorerProduct(explorerModel);
    try {
      const tries = [];
      for (let index = 0; index < 6; index++)
        tries.push(
          (
            await fetch(`${fresh.base}/admin/login`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: "token=wrong-token-0123456789",
            })
          ).status,
        );
      expect(tries).toEqual([401, 401, 401, 401, 401, 429]);
      const right = await fetch(`${fresh.base}/admin/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: ADMIN_TOKEN }),
        redirect: "manual",
      });
      expect(right.status).toBe(429);
    } finally {
      await fresh.close();
    }
  });
});

describe("without a session", () => {
  it("sends pages to the sign-in page and refuses the API and every POST", async () => {
    for (const path of [
      "/admin/",
      "/admin/runs/x",
      "/admin/usage",
      "/admin/usage.csv",
      "/admin/conversations",
      "/admin/audit",
      "/admin/tools",
      "/admin/settings",
    ]) {
      const response = await get(path);
      expect({ path, status: response.status, location: response.headers.get("location") }).toEqual({
        path,
        status: 303,
        location: "/admin/login",
      });
    }
    expect((await get("/admin/api/runs")).status).toBe(401);
    expect((await get("/admin/api/runs", { cookie: "admin_session=forged-session-id-000000000000" })).status).toBe(401);
    expect((await get("/admin/api/runs", { authorization: "Bearer wrong" })).status).toBe(401);
    for (const path of ["/admin/logout", "/admin/conversations/delete-fact", "/admin/runs/x/replay"])
      expect((await post(path, { csrf: "x" })).status).toBe(401);
  });
});

describe("with a session", () => {
  it("refuses a POST without the session's CSRF token, and takes it with the token", async () => {
    const [run] = ((await (await get("/admin/api/runs?limit=1", bearer)).json()) as { runs: Array<{ runId: string }> }).runs;
    expect((await post(`/admin/runs/${run!.runId}/replay`, {}, { cookie: session.cookie })).status).toBe(403);
    expect((await post(`/admin/runs/${run!.runId}/replay`, { csrf: "forged" }, { cookie: session.cookie })).status).toBe(403);
    const replayed = await post(
      `/admin/runs/${run!.runId}/replay`,
      { csrf: session.csrf, set: "AGENT_MAX_STEPS=1" },
      { cookie: session.cookie },
    );
    expect(replayed.status).toBe(200);
    expect(await replayed.text()).toContain('class="replay-result"');
  });

  it("the Tools page shows each tool's effect after policy next to its own", async () => {
    const html = await (await get("/admin/tools", { cookie: session.cookie })).text();
    expect(html).toContain("<th>After policy</th>");
    expect(html).toMatch(/<td>calculator<\/td><td>built in<\/td><td>read<\/td><td>read<\/td><td>up<\/td>/);
  });

  it("serves every page with a strict Content-Security-Policy and nothing from outside the process", async () => {
    for (const path of ["/admin/", "/admin/usage", "/admin/conversations", "/admin/audit", "/admin/tools", "/admin/settings"]) {
      const response = await get(path, { cookie: session.cookie });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const html = await response.text();
      expect(html.match(/(?:src|href)="(?!\/admin\/|#|https:\/\/app\.slack\.com\/)[^"]*"/g) ?? []).toEqual([]);
      expect(html).not.toMatch(/<script>|style="/);
    }
  });

  it("renders a question that holds a script as text", async () => {
    const page = await (await get("/admin/", { cookie: session.cookie })).text();
    expect(page).toContain("hello &lt;script&gt;window.__xss = 1&lt;/script&gt; there");
    expect(page).not.toContain("<script>window.__xss");
  });
});

describe("the JSON API", () => {
  it("lists runs with filters and a cursor, one run in full, and usage; bad filters are 400", async () => {
    const all = (await (await get("/admin/api/runs?limit=2", bearer)).json()) as {
      runs: Array<{ runId: string; outcome: string }>;
      next: string | null;
    };
    expect(all.runs).toHaveLength(2);
    expect(all.next).toEqual(expect.any(String));
    const rest = (await (await get(`/admin/api/runs?limit=2&cursor=${all.next}`, bearer)).json()) as {
      runs: unknown[];
      next: string | null;
    };
    expect(rest).toMatchObject({ runs: [expect.anything()], next: null });
    const guards = (await (await get("/admin/api/runs?outcome=guard&guard=repeat", bearer)).json()) as {
      runs: Array<{ question: string; guard: string }>;
    };
    expect(guards.runs.map((run) => [run.question, run.guard])).toEqual([["please loop", "repeat"]]);
    const one = (await (await get(`/admin/api/runs/${guards.runs.length ? all.runs[0]!.runId : ""}`, bearer)).json()) as {
      runId: string;
      steps: unknown[];
    };
    expect(one.runId).toBe(all.runs[0]!.runId);
    const usage = (await (await get("/admin/api/usage", bearer)).json()) as { total: { runs: number } };
    expect(usage.total.runs).toBe(3);
    for (const bad of ["limit=0", "limit=201", "outcome=maybe", "since=yesterday", "cursor=xyz"])
      expect((await get(`/admin/api/runs?${bad}`, bearer)).status).toBe(400);
    expect((await get("/admin/api/runs/no-such-run", bearer)).status).toBe(404);
    expect((await get("/admin/api/usage?since=2026-13-01", bearer)).status).toBe(400);
  });

  it("counts a wrong Bearer token as a failed sign-in: past 5 from an address it answers 429 without looking, the right one too", async () => {
    const fresh = await startExplorerProduct(explorerModel);
    try {
      const call = (token: string) => fetch(`${fresh.base}/admin/api/usage`, { headers: { authorization: `Bearer ${token}` } });
      // The right token is not a try: an API client may call as often as it likes.
      for (let index = 0; index < 8; index++) expect((await call(ADMIN_TOKEN)).status).toBe(200);
      const wrong = [];
      for (let index = 0; index < 6; index++) wrong.push((await call("wrong-token-0123456789")).status);
      expect(wrong).toEqual([401, 401, 401, 401, 401, 429]);
      const right = await call(ADMIN_TOKEN);
      expect(right.status).toBe(429);
      expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await right.json()).toEqual({ error: "Too many tries from your address: wait a minute." });
    } finally {
      await fresh.close();
    }
  });

  it("takes a POST with the Bearer header and no CSRF token", async () => {
    const [run] = ((await (await get("/admin/api/runs?limit=1", bearer)).json()) as { runs: Array<{ runId: string }> }).runs;
    expect((await post(`/admin/runs/${run!.runId}/replay`, { set: "" }, bearer)).status).toBe(200);
  });
});

describe("junk requests", () => {
  it("get 404, 405, 400, 413 or 415, and the process goes on answering", async () => {
    expect((await get("/admin/nope")).status).toBe(404);
    const put = await fetch(`${product.base}/admin/`, { method: "PUT", headers: bearer });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET");
    expect((await fetch(`${product.base}/admin/login`, { method: "DELETE" })).status).toBe(405);
    expect(
      (await fetch(`${product.base}/admin/login`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status,
    ).toBe(415);
    expect(
      (
        await fetch(`${product.base}/admin/login`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `token=${"x".repeat(1_000_000)}`,
        })
      ).status,
    ).toBe(413);
    expect(
      (
        await fetch(`${product.base}/admin/login`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: Buffer.from([0x74, 0x3d, 0xff, 0xfe]),
        })
      ).status,
    ).toBe(400);
    // A client that sends part of its body and goes away.
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(product.base).port), "127.0.0.1", () => {
        socket.write(
          "POST /admin/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken=abc",
        );
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on("close", () => resolve());
    });
    expect((await get("/admin/login")).status).toBe(200);
    expect((await get("/healthz")).status).toBe(200);
  });
});

describe("where the explorer listens", () => {
  it("is off without ADMIN_TOKEN: every /admin path 404s and never reaches Slack", async () => {
    const off = await startExplorerProduct(explorerModel, { ADMIN_TOKEN: "" });
    try {
      for (const path of ["/admin", "/admin/", "/admin/login", "/admin/api/runs", "/admin/assets/explorer.css"])
        expect((await fetch(`${off.base}${path}`)).status).toBe(404);
      expect((await fetch(`${off.base}/admin/login`, { method: "POST", body: "token=x" })).status).toBe(404);
      expect((await fetch(`${off.base}/healthz`)).status).toBe(200);
    } finally {
      await off.close();
    }
  });

  it("stops the start with one line for a token under 16 characters", async () => {
    const folder = await temporaryFolder();
    try {
      const result = await startApp({
        STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
        ADMIN_TOKEN: "too-short",
        LOG_LEVEL: "silent",
      });
      expect(result).toEqual({
        kind: "failed",
        message: 'Configuration error: ADMIN_TOKEN: expects at least 16 characters (got "<hidden>")',
      });
    } finally {
      await folder.remove();
    }
  });

  it("with ADMIN_PORT has a listener of its own on ADMIN_HOST, and the ops port's /admin 404s", async () => {
    const port = await freePort();
    const own = await startExplorerProduct(explorerModel, { ADMIN_PORT: String(port) });
    try {
      expect(own.app.adminPort).toBe(port);
      expect((await fetch(`${own.base}/admin/login`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/admin/login`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await own.close();
    }
  });

  it("in console mode listens on PORT at 127.0.0.1 with ADMIN_TOKEN, and opens no port without it", async () => {
    const folder = await temporaryFolder();
    try {
      const port = await freePort();
      const env = { STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, LOG_LEVEL: "silent", PORT: String(port) };
      const input = new PassThrough();
      const started = await startApp({ ...env, ADMIN_TOKEN }, { input, output: new PassThrough(), username: "newcomer" });
      if (started.kind !== "started") throw new Error(started.message);
      expect(started.app.adminPort).toBe(port);
      expect((await fetch(`http://127.0.0.1:${port}/admin/login`)).status).toBe(200);
      await started.app.stop();
      const plain = await startApp(env, { input: new PassThrough(), output: new PassThrough(), username: "newcomer" });
      if (plain.kind !== "started") throw new Error(plain.message);
      expect(plain.app.adminPort).toBeUndefined();
      await expect(fetch(`http://127.0.0.1:${port}/admin/login`)).rejects.toThrow();
      await plain.app.stop();
    } finally {
      await folder.remove();
    }
  });
});
