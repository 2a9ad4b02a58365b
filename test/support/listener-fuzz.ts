// Junk for every HTTP listener the bot opens: unknown paths, every method, bad content types,
// truncated and huge bodies, slow clients. A listener is one line in BOT_LISTENERS (its path,
// the methods it serves, and, when it takes a body, how a client makes one authentic); the
// cases are derived from it, each with the answer it must get. The test runs them against a
// real bot process and checks after each that the process is alive and still answering.
import { createHmac } from "node:crypto";
import { head, pause, sendRaw, type RawAnswer } from "./raw-http.js";
import { SIGNING_SECRET } from "./fake-slack-requests.js";
import { SLACK_EVENTS_ENDPOINT } from "../../src/adapters/slack/events-endpoint.js";

export interface FuzzedListener {
  readonly name: string;
  readonly path: string;
  /** The methods the path serves; every other method gets 405. */
  readonly methods: readonly string[];
  /** For a path that takes a body: the headers that make `body` authentic (a signature), so a malformed body gets past the check to the parser. */
  readonly authentic?: (body: string) => Record<string, string>;
  /** A body limit of its own, below every other: a larger body gets 413 whatever else it is. */
  readonly maxBodyBytes?: number;
}

/** Slack signs `v0:<timestamp>:<body>` with the app's signing secret. */
function slackSigned(body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac("sha256", SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest("hex");
  return { "X-Slack-Request-Timestamp": String(timestamp), "X-Slack-Signature": `v0=${signature}` };
}

/** Every listener on a bot process's PORT (Slack's HTTP mode shares it with the ops routes). */
export const BOT_LISTENERS: readonly FuzzedListener[] = [
  {
    name: "Slack events",
    path: "/slack/events",
    methods: ["POST"],
    authentic: slackSigned,
    maxBodyBytes: SLACK_EVENTS_ENDPOINT.maxBodyBytes,
  },
  { name: "liveness", path: "/healthz", methods: ["GET", "HEAD"] },
  { name: "readiness", path: "/readyz", methods: ["GET", "HEAD"] },
  { name: "metrics", path: "/metrics", methods: ["GET", "HEAD"] },
];

export type Expected =
  /** One of these statuses. */
  | { readonly kind: "status"; readonly statuses: readonly number[] }
  /** The listener handled it: an answer below 500 that is not "no such path/method" or "too large". */
  | { readonly kind: "served" }
  /** Any answer, a closed connection, or none: only the process's liveness afterwards counts. */
  | { readonly kind: "survived" };

export interface FuzzCase {
  readonly name: string;
  readonly expected: Expected;
  send(port: number): Promise<RawAnswer>;
}

export function accepts(expected: Expected, answer: RawAnswer): boolean {
  if (expected.kind === "survived") return true;
  if (answer.kind !== "status") return false;
  if (expected.kind === "status") return expected.statuses.includes(answer.status);
  return answer.status < 500 && ![404, 405, 413, 431].includes(answer.status);
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"];
/** Over every body limit the bot has (Bolt's is 4 MiB). */
const HUGE_BYTES = 5 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "a");
const SLOW_CLIENTS = 40;

const status = (...statuses: number[]): Expected => ({ kind: "status", statuses });
const SERVED: Expected = { kind: "served" };
const SURVIVED: Expected = { kind: "survived" };

/** Paths no listener serves, whatever the listeners are. */
function unknownPaths(): FuzzCase[] {
  const targets = ["/", "/nope", "/admin", "//", "/%zz", "/..%2f..%2fetc%2fpasswd", "/slack/events/../../nope", "http://127.0.0.1/nope"];
  return targets.flatMap((target) =>
    ["GET", "POST"].map((method) => ({
      name: `${method} ${target}`,
      expected: status(404),
      send: (port: number) => sendRaw(port, { parts: [head(method, target, { "Content-Length": 0 })] }),
    })),
  );
}

/** What a client can do wrong at the protocol level, on any path. */
function protocolJunk(): FuzzCase[] {
  return [
    { name: "an unknown method token", expected: status(400), send: (port) => sendRaw(port, { parts: [head("BREW", "/healthz")] }) },
    { name: "CONNECT", expected: status(405), send: (port) => sendRaw(port, { parts: [head("CONNECT", "127.0.0.1:1")] }) },
    { name: "not HTTP at all", expected: status(400), send: (port) => sendRaw(port, { parts: ["\x16\x03\x01 hello\r\n\r\n"] }) },
    {
      name: "headers over 16 KiB",
      expected: status(431),
      send: (port) => sendRaw(port, { parts: [head("GET", "/healthz", { "X-Big": "b".repeat(20_000) })] }),
    },
    {
      name: "a head cut off mid-header",
      expected: SURVIVED,
      send: (port) => sendRaw(port, { parts: ["GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Cut"], end: true, waitMs: 1_000 }),
    },
    {
      name: `${SLOW_CLIENTS} clients that never finish their headers, and a probe meanwhile`,
      expected: status(200),
      async send(port) {
        const trickle = Array.from({ length: 12 }, () => [pause(100), "X-Slow: 1\r\n"]).flat();
        const slow = Array.from({ length: SLOW_CLIENTS }, () =>
          sendRaw(port, { parts: [head("GET", "/healthz", {}, true), ...trickle], waitMs: 100 }),
        );
        await pause(400)();
        const probe = await sendRaw(port, { parts: [head("GET", "/healthz")] });
        await Promise.all(slow);
        return probe;
      },
    },
  ];
}

function casesOf(listener: FuzzedListener): FuzzCase[] {
  const { name, path, methods, authentic } = listener;
  const cases: FuzzCase[] = [];
  const add = (what: string, expected: Expected, send: (port: number) => Promise<RawAnswer>) =>
    cases.push({ name: `${name}: ${what}`, expected, send });

  for (const sibling of [`${path}/nope`, `${path}.bak`, `${path}%2F..`])
    add(`${methods[0]} ${sibling}`, status(404), (port) => sendRaw(port, { parts: [head(methods[0]!, sibling, { "Content-Length": 0 })] }));
  for (const method of METHODS) {
    const expected = methods.includes(method) ? SERVED : status(405);
    add(`${method} ${path}`, expected, (port) => sendRaw(port, { parts: [head(method, path, { "Content-Length": 0 })] }));
  }
  add(`GET ${path} asking for a WebSocket upgrade`, methods.includes("GET") ? SERVED : status(405), (port) =>
    sendRaw(port, { parts: [head("GET", path, { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": 13 })] }),
  );

  const method = authentic ? "POST" : methods[0]!;
  const junk = "{not json";
  for (const contentType of ["application/json", "text/plain", "application/xml", "multipart/form-data; boundary=x", undefined]) {
    const headers = { ...(contentType ? { "Content-Type": contentType } : {}), "Content-Length": Buffer.byteLength(junk) };
    if (authentic) {
      add(`an authentic malformed body as ${contentType ?? "no content type"}`, status(400), (port) =>
        sendRaw(port, { parts: [head(method, path, { ...headers, ...authentic(junk) }), junk] }),
      );
      add(`an unauthenticated body as ${contentType ?? "no content type"}`, status(401), (port) =>
        sendRaw(port, { parts: [head(method, path, headers), junk] }),
      );
    } else {
      add(`a body as ${contentType ?? "no content type"}`, SERVED, (port) => sendRaw(port, { parts: [head(method, path, headers), junk] }));
    }
  }
  if (authentic) {
    const form = "payload=%7Bnot";
    add("an authentic form whose payload is not JSON", status(400), (port) =>
      sendRaw(port, {
        parts: [
          head(method, path, { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": form.length, ...authentic(form) }),
          form,
        ],
      }),
    );
  }

  add("a body shorter than its Content-Length, then the client leaves", SURVIVED, (port) =>
    sendRaw(port, {
      parts: [head(method, path, { "Content-Type": "application/json", "Content-Length": 1_000 }), '{"type":'],
      end: true,
      waitMs: 1_000,
    }),
  );
  add("a chunked body cut off mid-chunk", SURVIVED, (port) =>
    sendRaw(port, {
      parts: [head(method, path, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" }), '10\r\n{"ty'],
      end: true,
      waitMs: 1_000,
    }),
  );
  add("a body trickled a byte at a time, then abandoned", SURVIVED, (port) =>
    sendRaw(port, {
      parts: [
        head(method, path, { "Content-Type": "application/json", "Content-Length": 100 }),
        ...Array.from({ length: 8 }, () => [pause(100), "{"]).flat(),
      ],
      waitMs: 200,
    }),
  );
  if (listener.maxBodyBytes !== undefined) {
    const over = Array.from({ length: Math.ceil((listener.maxBodyBytes + 1) / CHUNK.length) }, () => CHUNK);
    const bytes = over.length * CHUNK.length;
    add("a body over its own limit, unsigned", status(413), (port) =>
      sendRaw(port, { parts: [head(method, path, { "Content-Type": "application/json", "Content-Length": bytes }), ...over] }),
    );
  }
  const huge = Array.from({ length: Math.ceil(HUGE_BYTES / CHUNK.length) }, () => CHUNK);
  add("a declared body over every limit", status(413), (port) =>
    sendRaw(port, { parts: [head(method, path, { "Content-Type": "application/json", "Content-Length": HUGE_BYTES }), ...huge] }),
  );
  if (authentic)
    add("a chunked body that grows over the limit", status(413), (port) =>
      sendRaw(port, {
        parts: [
          head(method, path, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" }),
          ...huge.map((chunk) => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])),
          "0\r\n\r\n",
        ],
      }),
    );
  return cases;
}

/** Every case for a process serving `listeners`: the protocol junk and unknown paths once, the rest per listener. */
export function fuzzCases(listeners: readonly FuzzedListener[]): FuzzCase[] {
  return [...unknownPaths(), ...protocolJunk(), ...listeners.flatMap(casesOf)];
}
