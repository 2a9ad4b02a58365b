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
  /** What each kind was answered: "GET /nope → 404": 3 … */
  byKind: Record<string, number>;
}

interface JunkRequest {
  /** What it is, for the counts. */
  readonly label: string;
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
  () => ({ label: "GET /nope", method: "GET", path: "/nope" }),
  () => ({ label: "GET /admin", method: "GET", path: "/admin" }),
  () => ({ label: "GET /../../etc/passwd", method: "GET", path: "/../../etc/passwd" }),
  () => ({ label: "POST /nope", method: "POST", path: "/nope", headers: { "Content-Type": "application/json" }, body: "{}" }),
  () => ({ label: "PUT /slack/events", method: "PUT", path: "/slack/events", body: "x" }),
  () => ({ label: "DELETE /slack/events", method: "DELETE", path: "/slack/events" }),
  () => ({ label: "OPTIONS /slack/events", method: "OPTIONS", path: "/slack/events" }),
  () => ({ label: "HEAD /", method: "HEAD", path: "/" }),
  () => ({ label: "GET /slack/events", method: "GET", path: "/slack/events" }),
  () => ({
    label: "unsigned event",
    method: "POST",
    path: "/slack/events",
    headers: { "Content-Type": "application/json" },
    body: '{"type":"event_callback"}',
  }),
  () => ({
    label: "signed bad JSON",
    method: "POST",
    path: "/slack/events",
    headers: signed("{not json", "application/json"),
    body: "{not json",
  }),
  () => ({ label: "signed text/plain", method: "POST", path: "/slack/events", headers: signed("hello", "text/plain"), body: "hello" }),
  () => {
    const body = "payload=%7Bbroken";
    return {
      label: "signed broken form payload",
      method: "POST",
      path: "/slack/events",
      headers: signed(body, "application/x-www-form-urlencoded"),
      body,
    };
  },
  () => ({ label: "signed empty body", method: "POST", path: "/slack/events", headers: signed("", "application/json"), body: "" }),
  () => {
    const body = JSON.stringify({ type: "event_callback", event: { type: "message" } });
    return {
      label: "signed event of the wrong shape",
      method: "POST",
      path: "/slack/events",
      headers: signed(body, "application/json"),
      body,
    };
  },
  () => {
    const body = `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", actions: [{}] }))}`;
    return {
      label: "signed click of the wrong shape",
      method: "POST",
      path: "/slack/events",
      headers: signed(body, "application/x-www-form-urlencoded"),
      body,
    };
  },
  () => {
    const body = '{"type":"event_callback","event":{}}';
    return {
      label: "bad signature",
      method: "POST",
      path: "/slack/events",
      headers: { ...signed(body, "application/json"), "X-Slack-Signature": "v0=00" },
      body,
    };
  },
  () => {
    const body = '{"type":"event_callback","event":{}}';
    return {
      label: "stale timestamp",
      method: "POST",
      path: "/slack/events",
      headers: signed(body, "application/json", Math.floor(Date.now() / 1000) - 600),
      body,
    };
  },
  () => ({
    label: "3 MB body",
    method: "POST",
    path: "/slack/events",
    headers: { "Content-Type": "application/json" },
    body: Buffer.alloc(3 * 1024 * 1024, 0x61),
  }),
  () => ({
    label: "truncated body",
    method: "POST",
    path: "/slack/events",
    headers: { "Content-Type": "application/json" },
    body: `{"a":"${"b".repeat(4_000)}"}`,
    truncateAt: 100,
  }),
  () => ({
    label: "slow client",
    method: "POST",
    path: "/slack/events",
    headers: { "Content-Type": "application/json" },
    body: '{"type":"event_callback","event":{}}',
    slow: true,
  }),
  () => ({ label: "GET /healthz", method: "GET", path: "/healthz" }),
  () => ({ label: "GET /readyz", method: "GET", path: "/readyz" }),
  () => ({ label: "GET /metrics", method: "GET", path: "/metrics" }),
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
    const batch = requests.slice(i, i + 4);
    const answers = await Promise.all(batch.map((junk) => send(base, junk)));
    answers.forEach((answer, index) => {
      const kind = `${batch[index]!.label} → ${answer}`;
      counts.requests += 1;
      counts.byStatus[answer] = (counts.byStatus[answer] ?? 0) + 1;
      counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
    });
  }
}
