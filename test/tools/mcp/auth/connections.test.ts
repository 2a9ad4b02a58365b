// A person's connection against a real authorization server, below the chat: the Connect link
// (expired, replayed, foreign, refused), sealed tokens, a refresh done once by two processes with
// the refresh token rotated, and a disconnect that revokes at the server.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { PageRequest } from "../../../../src/ops/explorer/explorer-deps.js";
import { toolsPage } from "../../../../src/ops/explorer/pages/system-pages.js";
import { ADA, useConnectionsHarness } from "../../../support/connections-harness.js";
import { openInBrowser } from "../../../support/plain-browser.js";

const harness = useConnectionsHarness();

describe("a person's connection", () => {
  it("connects through the link once; the tokens are sealed in the store, never there as they are", async () => {
    const setup = await harness.start();
    const one = await setup.process();
    const link = await setup.link(one);
    expect(await openInBrowser(link)).toEqual({ status: 200, text: "Connected to docs — you can close this tab." });
    expect(setup.grants).toEqual([
      { owner: ADA, server: "docs", runId: "run_1", callId: "call_1", nonce: expect.any(String), expiresAt: expect.any(Number) },
    ]);
    expect(await one.connections.readiness(ADA, setup.info)).toBe("ready");
    expect(await one.connections.list(ADA)).toEqual([{ server: "docs", connectedAt: setup.clock.now }]);
    // The explorer's Tools page lists who connected which server and since when, never a token.
    expect(await one.connections.store.everyone()).toEqual([{ owner: ADA, server: "docs", connectedAt: setup.clock.now }]);
    const shown = await toolsPage({
      csrf: "",
      deps: { tools: () => [], connections: () => one.connections.store.everyone() },
    } as unknown as PageRequest);
    expect(shown.body).toContain("<td>ada</td><td>console</td><td>docs</td>");
    for (const token of setup.server.as.issued) expect(shown.body).not.toContain(token);
    // Replayed: refused, nothing more happens.
    expect(await openInBrowser(link)).toMatchObject({ status: 409 });
    expect(setup.grants).toHaveLength(1);
    expect(setup.server.as.tokenRequests.map((request) => request.grantType)).toEqual(["authorization_code"]);
    await one.store.close();
    const file = await readFile(setup.storeFile);
    expect(setup.server.as.issued.length).toBeGreaterThanOrEqual(2);
    for (const token of setup.server.as.issued) expect(file.includes(token)).toBe(false);
  });

  it("an expired link says so and changes nothing", async () => {
    const setup = await harness.start();
    const one = await setup.process();
    const link = await setup.link(one);
    setup.clock.now += 10 * 60_000 + 1;
    expect(await openInBrowser(link)).toMatchObject({ status: 410, text: expect.stringContaining("expired") });
    expect(setup.server.as.tokenRequests).toEqual([]);
    expect(await one.connections.readiness(ADA, setup.info)).toBe("needs_connection");
  });

  it("a link for another person's run, or for a run no longer waiting, changes nothing", async () => {
    const setup = await harness.start();
    const one = await setup.process();
    setup.check = "other_person";
    expect(await openInBrowser(await setup.link(one))).toMatchObject({ status: 403, text: expect.stringContaining("another person") });
    setup.check = "gone";
    expect(await openInBrowser(await setup.link(one))).toMatchObject({ status: 410, text: expect.stringContaining("not waiting") });
    expect(setup.server.as.tokenRequests).toEqual([]);
    expect(setup.grants).toEqual([]);
  });

  it("an altered state is not valid", async () => {
    const setup = await harness.start();
    const one = await setup.process();
    const link = new URL(await setup.link(one));
    const [payload, mac] = link.searchParams.get("state")!.split(".");
    const forged = JSON.parse(Buffer.from(payload!, "base64url").toString());
    forged.owner.person = "bob";
    link.searchParams.set("state", `${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${mac}`);
    expect(await openInBrowser(link.toString())).toMatchObject({ status: 400, text: expect.stringContaining("not valid") });
  });

  it("a token about to end is refreshed once by two processes at the same time; the rotated refresh token is the one kept", async () => {
    const setup = await harness.start({ accessTokenTtlSeconds: 60 });
    const one = await setup.process();
    const two = await setup.process();
    await openInBrowser(await setup.link(one));
    const before = (await one.connections.store.connection(ADA, "docs"))!.tokens;
    setup.clock.now += 60_000;
    expect(await Promise.all([one.connections.readiness(ADA, setup.info), two.connections.readiness(ADA, setup.info)])).toEqual([
      "ready",
      "ready",
    ]);
    expect(setup.server.as.tokenRequests.map((request) => request.grantType)).toEqual(["authorization_code", "refresh_token"]);
    const after = (await two.connections.store.connection(ADA, "docs"))!.tokens;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(await setup.server.as.refreshTokenValid(before.refresh_token!)).toBe(false);
    expect(await setup.server.as.accountOf(after.access_token, setup.server.url)).toBe("ada");
  });

  it("a refresh the server refuses ends the connection: the person is asked to connect again", async () => {
    const setup = await harness.start({ accessTokenTtlSeconds: 60 });
    const one = await setup.process();
    await openInBrowser(await setup.link(one));
    const held = (await one.connections.store.connection(ADA, "docs"))!.tokens;
    // Revoked elsewhere (the person signed out at the provider).
    await fetch(new URL("/token/revocation", setup.server.as.issuer), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: held.refresh_token!,
        client_id: (await one.connections.store.clientInformation("docs"))!.client_id,
      }),
    });
    setup.clock.now += 60_000;
    expect(await one.connections.readiness(ADA, setup.info)).toBe("needs_connection");
    expect(await one.connections.list(ADA)).toEqual([]);
  });

  it("disconnecting revokes the refresh token at the server and forgets the tokens", async () => {
    const setup = await harness.start();
    const one = await setup.process();
    await openInBrowser(await setup.link(one));
    const held = (await one.connections.store.connection(ADA, "docs"))!.tokens;
    expect(await one.connections.disconnect(ADA, setup.info)).toBe(true);
    expect(setup.server.as.revocations).toEqual([held.refresh_token]);
    expect(await setup.server.as.refreshTokenValid(held.refresh_token!)).toBe(false);
    expect(await one.connections.readiness(ADA, setup.info)).toBe("needs_connection");
    expect(await one.connections.disconnect(ADA, setup.info)).toBe(false);
  });
});
