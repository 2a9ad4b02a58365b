// A person's connection used by real bot processes (child processes sharing one store: a SQLite
// file, and Redis where redis-server is installed) against the real authorization server: two
// that find the same ended token at once refresh it once, and a process killed (kill -9) between
// the token endpoint's answer and the store write leaves the next one asking the person to
// connect again, once, instead of failing call after call.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ADA, type ConnectionsSetup, KEY, useConnectionsHarness } from "../../../support/connections-harness.js";
import { openInBrowser } from "../../../support/plain-browser.js";
import { supportPath } from "../../../support/repo-paths.js";
import { storeBackends } from "../../../support/store-backends.js";

const SCRIPT = supportPath("connection-user-process.ts");
/** Short, so the process after a kill -9 does not wait 15 s for the dead one's refresh lock to lapse. */
const REFRESH_LOCK_MS = "2000";

const harness = useConnectionsHarness();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
});

interface UserProcess {
  /** Readies ada's connection and calls `whoami`, as a run does: what the process answered. */
  use(): Promise<Record<string, unknown>>;
  kill9(): Promise<void>;
}

/** A bot process on the setup's store, once it has opened it. */
async function userProcess(setup: ConnectionsSetup, env: Record<string, string> = {}): Promise<UserProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      STORE_URL: setup.storeUrl,
      MCP_URL: setup.server.url,
      REDIRECT_URL: setup.redirectUrl,
      SEALING_KEY: KEY.toString("base64"),
      REFRESH_LOCK_MS,
      ...env,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  const exited = once(child, "exit");
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done) throw new Error(`the process ended (${child.exitCode ?? child.signalCode}) without answering`);
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  expect(await next()).toEqual({ ready: true });
  return {
    use() {
      child.stdin!.write("go\n");
      return next();
    },
    async kill9() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * Ada connected through the link, and the authorization server ended her access token just now.
 * `anHourAgo`: she connected an hour ago, so every process finds the token ended by its time;
 * otherwise only the protected server's 401 tells.
 */
async function connectedThenEnded(setup: ConnectionsSetup, anHourAgo: boolean): Promise<{ access_token: string; refresh_token?: string }> {
  const here = await setup.process();
  if (anHourAgo) setup.clock.now = Date.now() - 3_600_000;
  expect(await openInBrowser(await setup.link(here))).toMatchObject({ status: 200 });
  const tokens = (await here.connections.store.connection(ADA, "docs"))!.tokens;
  await setup.server.as.endAccessToken(tokens.access_token);
  return tokens;
}

describe.each(storeBackends())("$name: bot processes sharing a person's connection", (backend) => {
  afterAll(() => backend.stop());

  it("two that find the same ended access token at once: one refresh_token grant, both calls go through, the rotated token is stored", async () => {
    const setup = await harness.start({ storeUrl: await backend.url() });
    const before = await connectedThenEnded(setup, true);
    const users = await Promise.all([userProcess(setup), userProcess(setup)]);
    expect(await Promise.all(users.map((user) => user.use()))).toEqual([{ answer: "you are ada" }, { answer: "you are ada" }]);
    const { as } = setup.server;
    expect(as.tokenRequests.map((request) => request.grantType)).toEqual(["authorization_code", "refresh_token"]);
    const stored = (await (await setup.process()).connections.store.connection(ADA, "docs"))!.tokens;
    expect(stored.refresh_token).not.toBe(before.refresh_token);
    expect(await as.refreshTokenValid(stored.refresh_token!)).toBe(true);
    expect(await as.refreshTokenValid(before.refresh_token!)).toBe(false);
    expect(await as.accountOf(stored.access_token, setup.server.url)).toBe("ada");
  }, 60_000);

  it("one killed between the token endpoint's answer and the store write: the next asks ada to connect again, once, and her new connection works", async () => {
    const setup = await harness.start({ storeUrl: await backend.url() });
    const before = await connectedThenEnded(setup, true);
    const { as } = setup.server;
    const grants = () => as.tokenRequests.map((request) => request.grantType);
    const crashing = await userProcess(setup, { HANG_TOKEN_WRITE: "1" });
    expect(await crashing.use()).toEqual({ writing: true });
    await crashing.kill9();
    // The server rotated the refresh token; the store still holds the one it took back.
    expect(grants()).toEqual(["authorization_code", "refresh_token"]);
    expect(await as.refreshTokenValid(before.refresh_token!)).toBe(false);
    const here = await setup.process();
    expect((await here.connections.store.connection(ADA, "docs"))!.tokens.refresh_token).toBe(before.refresh_token);

    // Once the dead process's lock lapsed, the refresh with the spent token is refused: ada is asked to connect.
    const next = await userProcess(setup);
    expect(await next.use()).toEqual({ needs: "docs" });
    expect(grants()).toEqual(["authorization_code", "refresh_token", "refresh_token"]);
    expect(await here.connections.list(ADA)).toEqual([]);
    // Asked again, the same: no more token requests, no error.
    expect(await next.use()).toEqual({ needs: "docs" });
    expect(grants()).toHaveLength(3);

    setup.clock.now = Date.now();
    expect(await openInBrowser(await setup.link(here))).toMatchObject({ status: 200 });
    expect(await next.use()).toEqual({ answer: "you are ada" });
    expect(grants()).toEqual(["authorization_code", "refresh_token", "refresh_token", "authorization_code"]);
  }, 60_000);

  it("one killed after its session renewed the token at the server's 401, before storing it: the next call says so, then ada is asked to connect", async () => {
    const setup = await harness.start({ storeUrl: await backend.url() });
    await connectedThenEnded(setup, false);
    const grants = () => setup.server.as.tokenRequests.map((request) => request.grantType);
    const crashing = await userProcess(setup, { HANG_TOKEN_WRITE: "1" });
    expect(await crashing.use()).toEqual({ writing: true });
    await crashing.kill9();
    expect(grants()).toEqual(["authorization_code", "refresh_token"]);

    const next = await userProcess(setup);
    expect(await next.use()).toEqual({
      error: "docs no longer accepts the person's connection: call whoami again, and they are asked to connect it again",
    });
    expect(await next.use()).toEqual({ needs: "docs" });
    expect(grants()).toEqual(["authorization_code", "refresh_token", "refresh_token"]);
  }, 60_000);
});
