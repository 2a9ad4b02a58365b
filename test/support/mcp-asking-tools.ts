// Tools of an SDK-built MCP server that ask the person in the middle of a call
// (`elicitation/create`): a form with every kind of field and defaults, a link, and a form this
// client refuses (a default outside its bounds), asked on the session's standalone stream as
// `elicitInput` does by default; and the form asked on the call's own response stream, as a
// server relates a question to its call. Each call's answer from the client is kept, so a test
// sees what the server received; with `elicitTimeoutMs` the server gives up waiting like a real one would.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ElicitResult, RequestId } from "@modelcontextprotocol/sdk/types.js";

export interface AskingLog {
  /** What the server received for each question, in order (or the error it got). */
  readonly results: Array<ElicitResult | { readonly error: string }>;
  /** Resolves when the next question reached its result. */
  next(): Promise<ElicitResult | { readonly error: string }>;
}

/** The room booking form: text with a default, a required text, a number, a boolean, an enum with titles. */
export const BOOKING_SCHEMA = {
  type: "object",
  properties: {
    room: { type: "string", title: "Room", enum: ["oak", "pine"], enumNames: ["Oak room", "Pine room"], default: "oak" },
    purpose: { type: "string", title: "Purpose", description: "what the meeting is for", maxLength: 100 },
    people: { type: "integer", title: "People", minimum: 1, maximum: 12, default: 4 },
    projector: { type: "boolean", title: "Projector", default: true },
    note: { type: "string", title: "Note", default: "none" },
  },
  required: ["purpose"],
} as const;

export function askingTools(options: { elicitTimeoutMs?: number } = {}): { setup: (server: McpServer) => void; log: AskingLog } {
  const results: AskingLog["results"] = [];
  const waiting: Array<(result: AskingLog["results"][number]) => void> = [];
  const keep = (result: AskingLog["results"][number]) => {
    results.push(result);
    waiting.shift()?.(result);
  };
  /** `call`: the request the question is about, so it goes on that request's stream; none: the standalone stream. */
  const ask = async (server: McpServer, params: Parameters<McpServer["server"]["elicitInput"]>[0], call?: RequestId): Promise<string> => {
    try {
      const result = await server.server.elicitInput(params, {
        ...(options.elicitTimeoutMs ? { timeout: options.elicitTimeoutMs } : {}),
        ...(call === undefined ? {} : { relatedRequestId: call }),
      });
      keep(result);
      return JSON.stringify(result);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      keep({ error: message });
      return `the client did not answer: ${message}`;
    }
  };
  const setup = (server: McpServer) => {
    server.registerTool(
      "book_room",
      { description: "books a meeting room, asking the person for the details", inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => ({
        content: [
          { type: "text", text: await ask(server, { message: "Which room, and what for?", requestedSchema: BOOKING_SCHEMA as never }) },
        ],
      }),
    );
    server.registerTool(
      "book_room_here",
      { description: "books a meeting room, asking on the call's own stream", inputSchema: {}, annotations: { readOnlyHint: true } },
      async (_arguments, extra) => ({
        content: [
          {
            type: "text",
            text: await ask(server, { message: "Which room, and what for?", requestedSchema: BOOKING_SCHEMA as never }, extra.requestId),
          },
        ],
      }),
    );
    server.registerTool(
      "sign_in",
      { description: "sends the person to a sign-in page", inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => ({
        content: [
          {
            type: "text",
            text: await ask(server, {
              mode: "url",
              message: "Sign in to the wiki",
              url: "https://wiki.example.test/sign-in?x=1",
              elicitationId: "e-1",
            }),
          },
        ],
      }),
    );
    server.registerTool(
      "ask_broken",
      { description: "asks with a default outside its own bounds", inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => ({
        content: [
          {
            type: "text",
            text: await ask(server, {
              message: "How many?",
              requestedSchema: { type: "object", properties: { count: { type: "integer", minimum: 1, maximum: 3, default: 9 } } },
            }),
          },
        ],
      }),
    );
  };
  return {
    setup,
    log: {
      results,
      next: () => new Promise((resolve) => waiting.push(resolve)),
    },
  };
}
