// Bursts of what the internet sends a public bot URL: unknown paths and methods, bodies that do
// not parse, wrong content types, unsigned, badly signed and stale requests, a huge body, a
// truncated one, a slow client, well-formed JSON of the wrong shape, and the ops routes. The
// bot must answer each (4xx is right) and live on; what it answered is counted by status.
import { request } from "node:http";
import { sign } from "../test/support/fake-slack-requests.js";
import { hashOf } from "./random.js";

export interface JunkCounts {
  requests: number;
  /** "404", "401", "no answer" (the connection was closed or timed out) … */
  byStatus: Record<string, number>;
}

interface JunkRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Sends this many bytes of the body, then drops the connection. */
  readonly truncateAt?: number;
  /** Sends the body a few bytes at a time over about two seconds. */
  readonly slow?: true;
}

const signed = (body: string, contentType: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> => ({
  "Content-Type": contentType,
  "X-Slack-Request-Timestamp": String(timestamp),
  "X-Slack-Signature": sign(body, timestamp),
});

const KINDS: ReadonlyArray<() => JunkRequest> = [
  () => ({ method: "GET", path: "/nope" }),
  () => ({ method: "GET", path: "/admin" }),
  () => ({ method: "GET", path: "/../../etc/passwd" }),
  () => ({ method: "POST", path: "/nope", headers: { "Content-Type": "application/json" }, body: "{}" }),
  () => ({ method: "PUT", path: "/slack/events", body: "x" }),
  () => ({ method: "DELETE", path: "/slack/events" }),
  () => ({ method: "OPTIONS", path: "/slack/events" }),
  () => ({ method: "HEAD", path: "/" }),
  () => ({ method: "GET", path: "/slack/events" }),
  () => ({ method: "POST", path: "/slack/events", headers: { "Content-Type": "application/json" }, body: '{"type":"event_callback"}' }),
  () => ({ method: "POST", path: "/slack/events", headers: signed("{not json", "application/json"), body: "{not json" }),
  () => ({ method: "POST", path: "/slack/events", headers: signed("hello", "text/plain"), body: "hello" }),
  () => {
    const body = "payload=%7Bbroken";
    return { method: "POST", path: "/slack/events", headers: signed(body, "application/x-www-form-urlencoded"), body };
  },
  () => ({ method: "POST", path: "/slack/events", headers: signed("", "application/json"), body: "" }),
  () => {
    const body = JSON.stringify({ type: "event_callback", event: { type: "message" } });
    return { method: "POST", path: "/slack/events", headers: signed(body, "application/json"), body };
  },
  () => {
    const body = `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", actions: [{}] }))}`;
    return { method: "POST", path: "/slack/events", headers: signed(body, "application/x-www-form-urlencoded"), body };
  },
  () => {
    const body = '{"type":"event_callback","event":{}}';
    return { method: "POST", path: "/slack/events", headers: { ...signed(body, "application/json"), "X-Slack-Signature": "v0=00" }, body };
  },
  () => {
    const body = '{"type":"event_callback","event":{}}';
    return { method: "POST", path: "/slack/events", headers: signed(body, "application/json", Math.floor(Date.now() / 1000) - 600), body };
  },
  () => ({
    method: "POST",
    path: "/slack/events",
    headers: { "Content-Type": "application/json" },
    body: Buffer.alloc(3 * 1024 * 1024, 0x61),
  }),
  () => ({
    method: "POST",
    path: "/slack/events",
    headers: { "Content-Type": "application/json" },
    body: `{"a":"${"b".repeat(4_000)}"}`,
    truncateAt: 100,
  }),
  () => ({
    method: "POST",
    path: "/slack/events",
    headers: { "Content-Type": "application/json" },
    body: '{"type":"event_callback","event":{}}',
    slow: true,
  }),
  () => ({ method: "GET", path: "/healthz" }),
  () => ({ method: "GET", path: "/readyz" }),
  () => ({ method: "GET", path: "/metrics" }),
];

const TIMEOUT_MS = 5_000;

function send(base: string, junk: JunkRequest): Promise<string> {
  const url = new URL(junk.path, base);
  const body = junk.body === undefined ? undefined : Buffer.isBuffer(junk.body) ? junk.body : Buffer.from(junk.body);
  return new Promise((resolve) => {
    let settled = false;
    const done = (what: string) => {
      if (settled) return;
      settled = true;
      resolve(what);
    };
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: junk.path,
        method: junk.method,
        headers: { ...junk.headers, ...(body ? { "Content-Length": String(body.length) } : {}) },
        timeout: TIMEOUT_MS,
      },
      (response) => {
        response.resume();
        response.on("end", () => done(String(response.statusCode)));
        response.on("error", () => done(String(response.statusCode)));
      },
    );
    outgoing.on("error", () => done("no answer"));
    outgoing.on("timeout", () => {
      outgoing.destroy();
      done("no answer");
    });
    if (!body) return void outgoing.end();
    if (junk.truncateAt !== undefined) {
      outgoing.write(body.subarray(0, junk.truncateAt));
      setTimeout(() => {
        outgoing.destroy();
        done("dropped");
      }, 200);
      return;
    }
    if (junk.slow) {
      let offset = 0;
      const trickle = setInterval(() => {
        if (offset >= body.length) {
          clearInterval(trickle);
          outgoing.end();
          return;
        }
        outgoing.write(body.subarray(offset, offset + 4));
        offset += 4;
      }, 200);
      outgoing.on("close", () => clearInterval(trickle));
      return;
    }
    outgoing.end(body);
  });
}

/** `count` junk requests to the process at `base`, a few at a time; the kinds are drawn from `draw`. */
export async function sendJunkBurst(base: string, count: number, draw: number, counts: JunkCounts): Promise<void> {
  const requests = Array.from({ length: count }, (_, i) => KINDS[hashOf(draw, "junk", i) % KINDS.length]!());
  for (let i = 0; i < requests.length; i += 4) {
    const answers = await Promise.all(requests.slice(i, i + 4).map((junk) => send(base, junk)));
    for (const answer of answers) {
      counts.requests += 1;
      counts.byStatus[answer] = (counts.byStatus[answer] ?? 0) + 1;
    }
  }
}
