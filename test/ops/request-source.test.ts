// Who sent a request, through the number of reverse proxies TRUST_PROXY names: the client's
// address is the entry that many from the right of X-Forwarded-For (the socket's address last),
// so what a client writes into the header is never taken; X-Forwarded-Proto is the outermost
// proxy's. The explorer's HTTP tests cover one proxy end to end.
import { describe, expect, it } from "vitest";
import { requestSource } from "../../src/ops/request-source.js";

const arriving = (headers: Record<string, string | string[]>, remoteAddress = "10.0.0.2") => ({ headers, socket: { remoteAddress } });

describe("requestSource", () => {
  it("with no trusted proxy is the socket's address, and never HTTPS on the headers' word", () => {
    expect(requestSource(arriving({ "x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https" }), 0)).toEqual({
      address: "10.0.0.2",
      https: false,
    });
  });

  it("with two proxies (a CDN, then a load balancer) is the entry the CDN appended", () => {
    // The client wrote 192.0.2.66 itself; the CDN appended the client's 203.0.113.7; the balancer appended the CDN's 198.51.100.4.
    const request = arriving({ "x-forwarded-for": "192.0.2.66, 203.0.113.7, 198.51.100.4", "x-forwarded-proto": "https, http" });
    expect(requestSource(request, 2)).toEqual({ address: "203.0.113.7", https: true });
    expect(requestSource(request, 1)).toEqual({ address: "198.51.100.4", https: true });
  });

  it("takes the header sent on several lines as one list, and the furthest entry when proxies were skipped", () => {
    expect(requestSource(arriving({ "x-forwarded-for": ["203.0.113.7", "198.51.100.4"] }), 2).address).toBe("203.0.113.7");
    expect(requestSource(arriving({}), 3)).toEqual({ address: "10.0.0.2", https: false });
  });

  it("keeps a junk entry short: it is only a key", () => {
    expect(requestSource(arriving({ "x-forwarded-for": "x".repeat(10_000) }), 1).address).toHaveLength(64);
  });
});
