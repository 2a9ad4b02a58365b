// The explorer's sign-in over HTTP against the real product, as a reverse proxy in front of it
// would call it: with TRUST_PROXY the tries are counted by the address the proxy forwards (never
// by what a client writes into X-Forwarded-For) and the session cookie is Secure when the proxy
// says HTTPS; an https PUBLIC_URL makes it Secure whatever the request says; 60 failed sign-ins a
// minute from everyone hold back every address.
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, startExplorerProduct, type ExplorerProduct } from "../../support/explorer-harness.js";
import { explorerModel } from "../../support/explorer-model.js";

let product: ExplorerProduct | undefined;
afterEach(async () => {
  await product?.close();
  product = undefined;
});

const WRONG = "wrong-token-0123456789";

/** A sign-in try as the proxy passes it on: `forwardedFor` is the whole X-Forwarded-For it sends. */
async function signIn(base: string, token: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ token }),
    redirect: "manual",
  });
  return {
    status: response.status,
    cookie: response.headers.get("set-cookie") ?? "",
    retryAfter: response.headers.get("retry-after"),
    body: await response.text(),
  };
}
const from = (address: string, more: Record<string, string> = {}) => ({ "x-forwarded-for": address, ...more });

describe("behind a reverse proxy (TRUST_PROXY=yes)", () => {
  it("counts sign-in tries by the address the proxy forwards, which a client can't write", async () => {
    product = await startExplorerProduct(explorerModel, { TRUST_PROXY: "yes" });
    const { base } = product;
    for (let index = 0; index < 5; index++) expect((await signIn(base, WRONG, from("203.0.113.7"))).status).toBe(401);
    const limited = await signIn(base, ADMIN_TOKEN, from("203.0.113.7"));
    expect(limited.status).toBe(429);
    expect(limited.body).toContain("Too many tries from your address");
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    // What the client wrote itself comes first; the proxy appended the address it saw.
    expect((await signIn(base, ADMIN_TOKEN, from("203.0.113.8, 203.0.113.7"))).status).toBe(429);
    // Another client behind the same proxy is not held back.
    expect((await signIn(base, ADMIN_TOKEN, from("203.0.113.8"))).status).toBe(303);
  });

  it("marks the session cookie Secure when the proxy says the browser came over HTTPS", async () => {
    product = await startExplorerProduct(explorerModel, { TRUST_PROXY: "yes" });
    const secure = await signIn(product.base, ADMIN_TOKEN, from("203.0.113.7", { "x-forwarded-proto": "https" }));
    expect(secure.status).toBe(303);
    expect(secure.cookie).toMatch(/^admin_session=[\w-]{40,}; Max-Age=\d+; Path=\/admin; HttpOnly; SameSite=Strict; Secure$/);
    const signedOut = await fetch(`${product.base}/admin/logout`, {
      method: "POST",
      headers: { cookie: secure.cookie.split(";")[0]!, "x-forwarded-proto": "https", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: await csrfOf(product.base, secure.cookie) }),
      redirect: "manual",
    });
    expect(signedOut.headers.get("set-cookie")).toMatch(/^admin_session=; Max-Age=0; .*; Secure$/);
    const plain = await signIn(product.base, ADMIN_TOKEN, from("203.0.113.7", { "x-forwarded-proto": "http" }));
    expect(plain.cookie).not.toContain("Secure");
  });

  it("after 60 failed sign-ins in a minute from 60 addresses, every address waits, the right token too", async () => {
    product = await startExplorerProduct(explorerModel, { TRUST_PROXY: "yes" });
    const { base } = product;
    for (let index = 0; index < 60; index++) expect((await signIn(base, WRONG, from(`198.51.100.${index}`))).status).toBe(401);
    const next = await signIn(base, WRONG, from("192.0.2.1"));
    expect(next.status).toBe(429);
    expect(next.body).toContain("Too many failed sign-ins from everyone in the last minute");
    expect((await signIn(base, ADMIN_TOKEN, from("192.0.2.2"))).status).toBe(429);
  });
});

describe("the session cookie", () => {
  it("is Secure with an https PUBLIC_URL, whatever the request says", async () => {
    product = await startExplorerProduct(explorerModel, { PUBLIC_URL: "https://bot.example.com" });
    expect((await signIn(product.base, ADMIN_TOKEN)).cookie).toMatch(/; Secure$/);
  });

  it("is not Secure on a client's word: without TRUST_PROXY the forwarding headers are ignored", async () => {
    product = await startExplorerProduct(explorerModel);
    const { base } = product;
    expect((await signIn(base, ADMIN_TOKEN, { "x-forwarded-proto": "https" })).cookie).not.toContain("Secure");
    // Every forwarded address is the one socket's: the one address has its 5 tries.
    for (let index = 0; index < 4; index++) expect((await signIn(base, WRONG, from(`203.0.113.${index}`))).status).toBe(401);
    expect((await signIn(base, ADMIN_TOKEN, from("203.0.113.99"))).status).toBe(429);
  });
});

/** The CSRF token of the runs page for a signed-in cookie. */
async function csrfOf(base: string, setCookie: string): Promise<string> {
  const page = await (await fetch(`${base}/admin/`, { headers: { cookie: setCookie.split(";")[0]! } })).text();
  return /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
}
