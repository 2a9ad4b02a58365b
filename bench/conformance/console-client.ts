// The MCP conformance suite's client, played by the product in console mode: the suite runs
// `node --import tsx bench/conformance/console-client.ts <server URL>` (see run.sh) with its
// scenario (and, for pre-registered or client-credentials clients, the credentials) in the
// environment. This writes an mcp.json naming the server, starts the app as `npm start` would
// (console, SQLite in a temporary folder), and asks one question. The model is a small scripted
// server that calls each of the MCP server's tools once (its `connect` tool first), then answers.
// A `Connect <server>: <url>` line is opened as a browser would: plain GET requests following
// redirects; a write's `approve? [y/N]` is answered `y`; a server's form takes every default (empty
// lines) and is sent (`y`). Exit code 0 once the answer shows, 1 otherwise.
import { appendFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { SEND_PROMPT } from "../../src/adapters/console/console-forms.js";
import { startApp } from "../../src/app.js";
import { type RecordedRequest, startFakeOpenAI, textReply, toolCallReply } from "../../test/support/fake-openai-server.js";
import { freePort } from "../../test/support/free-port.js";
import { openInBrowser } from "../../test/support/plain-browser.js";
import { temporaryFolder } from "../../test/support/temporary-folder.js";

const SERVER = "conformance";
const ANSWER = "conformance run done";
const FORM_HEADER = "asks you to fill in a form";
/**
 * Where the suite expects a client's metadata document to be published (its own clients use this
 * address): the console's PUBLIC_URL is http, so the operator's MCP_CLIENT_METADATA_URL names it.
 */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

interface Context {
  readonly client_id?: string;
  readonly client_secret?: string;
  readonly private_key_pem?: string;
  readonly signing_algorithm?: string;
}

/** mcp.json's `auth` for the scenario: the credentials the suite hands over, else nothing (discovered at the first 401). */
function authFor(scenario: string, context: Context): object | undefined {
  if (scenario.startsWith("auth/client-credentials") && context.client_id) {
    return context.private_key_pem
      ? { type: "service", clientId: context.client_id, privateKey: context.private_key_pem, signingAlgorithm: context.signing_algorithm }
      : { type: "service", clientId: context.client_id, clientSecret: context.client_secret };
  }
  if (context.client_id)
    return { type: "user", clientId: context.client_id, ...(context.client_secret ? { clientSecret: context.client_secret } : {}) };
  // A server of the 2025-03-26 spec names no resource metadata to be discovered by: its operator says it signs people in.
  if (scenario.startsWith("auth/2025-03-26")) return { type: "user" };
  return undefined;
}

/** Arguments that satisfy a flat JSON schema: numbers 1, strings "x", booleans true. */
function argumentsFor(schema: { properties?: Record<string, { type?: string }> } | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    args[name] = property.type === "number" || property.type === "integer" ? 1 : property.type === "boolean" ? true : "x";
  }
  return args;
}

interface OfferedTool {
  readonly function: { readonly name: string; readonly parameters?: { properties?: Record<string, { type?: string }> } };
}

interface SentMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: Array<{ function: { name: string } }>;
}

/** How many times a call is taken again when the server asks for it (a step-up): as a model would, a few times at most. */
const RETRIES = 2;

/**
 * The scripted model: the server's `connect` first when it is offered, then each of its tools
 * once, again when its result asks to call it again (a step-up), then the answer.
 */
function nextReply(request: RecordedRequest) {
  const body = request.body as { tools?: OfferedTool[]; messages: SentMessage[] };
  const calls = body.messages.flatMap((message) => message.tool_calls?.map((call) => call.function.name) ?? []);
  const mine = (body.tools ?? []).filter((tool) => tool.function.name.startsWith(`${SERVER}__`));
  const last = [...body.messages].reverse().find((message) => message.role === "tool" || message.role === "assistant");
  const lastCall = calls.at(-1);
  const again = last?.role === "tool" && /call it again/.test(JSON.stringify(last.content)) && lastCall !== undefined;
  const retried = again && calls.filter((name) => name === lastCall).length <= RETRIES;
  const next = retried ? mine.find((tool) => tool.function.name === lastCall) : mine.find((tool) => !calls.includes(tool.function.name));
  if (!next) return textReply(ANSWER);
  return toolCallReply([{ name: next.function.name, args: argumentsFor(next.function.parameters) }]);
}

async function main(): Promise<number> {
  const url = process.argv[2];
  if (!url) throw new Error("usage: console-client.ts <server URL>");
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Context;
  const folder = await temporaryFolder();
  const model = await startFakeOpenAI();
  for (let step = 0; step < 20; step++) model.enqueue(nextReply);
  const config = join(folder.path, "mcp.json");
  const auth = authFor(scenario, context);
  await writeFile(config, JSON.stringify({ mcpServers: { [SERVER]: { url, ...(auth ? { auth } : {}) } } }));

  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  const waiters = new Set<() => void>();
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString("utf8");
    process.stderr.write(chunk);
    if (process.env.CONSOLE_CLIENT_LOG) appendFileSync(process.env.CONSOLE_CLIENT_LOG, chunk);
    for (const waiter of waiters) waiter();
  });
  const until = (test: () => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (!test()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        resolve(false);
      }, ms);
      waiters.add(check);
      check();
    });

  const started = await startApp(
    {
      ...process.env,
      STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
      MCP_CONFIG: config,
      OPENAI_API_KEY: "sk-conformance",
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_MODEL: "gpt-4o-mini",
      PORT: String(await freePort()),
      APPROVAL_SECRET: "conformance-approval-secret-0123456789",
      MEMORY_EXTRACT_FACTS: "no",
      MCP_CLIENT_METADATA_URL: CLIENT_METADATA_URL,
    },
    { input, output, username: "conformance" },
  );
  if (started.kind !== "started") {
    process.stderr.write(`${started.message}\n`);
    return 1;
  }
  let opened = 0;
  let sent = 0;
  try {
    await until(() => shown.includes(`MCP server ${SERVER}:`) && /MCP server conformance: (up|failed|down)/.test(shown), 20_000);
    input.write(`Use the ${SERVER} server's tools.\n`);
    // Each Connect line (a first sign-in, a step-up) is opened by the browser.
    for (;;) {
      const links = [...shown.matchAll(new RegExp(`Connect ${SERVER}: (\\S+)`, "g"))].map((match) => match[1]!);
      if (shown.includes(ANSWER)) return 0;
      // A write asks at the prompt, as it does a person at the terminal: approved.
      if (shown.endsWith("approve? [y/N] ")) {
        input.write("y\n");
        shown += "\n";
        continue;
      }
      // A server's form: each field's prompt takes its default (an empty line), then it is sent.
      const forms = shown.split(FORM_HEADER).length - 1;
      if (forms > sent && shown.endsWith(SEND_PROMPT)) {
        input.write("y\n");
        shown += "\n";
        sent += 1;
        continue;
      }
      if (forms > sent && shown.endsWith(": ")) {
        input.write("\n");
        shown += "\n";
        continue;
      }
      if (links.length > opened) {
        const page = await openInBrowser(links[opened]!);
        shown += `[browser] ${page.status} ${page.text}\n`;
        if (process.env.CONSOLE_CLIENT_LOG) appendFileSync(process.env.CONSOLE_CLIENT_LOG, `[browser] ${page.status} ${page.text}\n`);
        opened += 1;
        continue;
      }
      const moved = shown.length;
      if (!(await until(() => shown.length !== moved, 20_000))) return 1;
    }
  } finally {
    input.end();
    await started.app.stop();
    await model.close();
    await folder.remove();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
