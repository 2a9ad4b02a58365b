// The tools a run may call. Every call is checked here before anything runs: arguments that
// are not JSON or fail the schema, unknown tools, throws and timeouts all come back as
// observations the model can act on, never as exceptions.
import { z } from "zod";
import { errorText } from "../loop/error-text.js";
import { FIX_ARGS_HINT, SEND_JSON_HINT } from "../../contracts/observation-text.js";
import { callSignature } from "./signature.js";
import { ToolOutput } from "./tool-output.js";
import { ToolRace } from "./tool-race.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { AnswerFile, CallOutcome, Tool, ToolCall, ToolContext, ToolSchema } from "../../contracts/types.js";
import { ToolTimeout } from "../../errors.js";

export type PreparedCall =
  | { readonly kind: "ready"; readonly call: ToolCall; readonly signature: string; readonly tool: Tool; readonly args: unknown }
  | {
      readonly kind: "rejected";
      readonly call: ToolCall;
      readonly signature: string;
      readonly outcome: "invalid_args" | "unknown_tool";
      readonly message: string;
    };

export interface Execution {
  readonly outcome: Extract<CallOutcome, "ok" | "error" | "timeout">;
  readonly result: string;
  readonly durationMs: number;
  /** Files the call added to the answer (it returned a ToolOutput). */
  readonly files?: readonly AnswerFile[];
}

const schemaCache = new WeakMap<Tool, ToolSchema>();

/** zod → JSON Schema, once per tool object; a tool that brings its provider's JSON Schema (MCP) is offered with that. */
function toolSchema(tool: Tool): ToolSchema {
  let schema = schemaCache.get(tool);
  if (!schema) {
    const { $schema: _ignored, ...parameters } = (tool.parameters ??
      z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" })) as Record<string, unknown>;
    schema = { name: tool.name, description: tool.description, parameters };
    schemaCache.set(tool, schema);
  }
  return schema;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
}

/** The text a tool's return value is shown as. */
export function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof ToolOutput) return value.text;
  if (value === undefined || value === null) return "(no output)";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

interface ToolView {
  readonly extra: readonly Tool[] | undefined;
  readonly byName: ReadonlyMap<string, Tool>;
  readonly schemas: readonly ToolSchema[];
}

function toolView(tools: readonly Tool[], extra: readonly Tool[] | undefined): ToolView {
  // A fixed tool keeps its name when a dynamic one (an MCP server's) brings the same.
  const byName = new Map([...(extra ?? []), ...tools].map((tool) => [tool.name, tool]));
  // By name: the same tools give the same bytes whatever order servers connected in, so a prompt cache can reuse them.
  const sorted = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { extra, byName, schemas: sorted.map(toolSchema) };
}

async function held<T>(race: ToolRace, work: () => Promise<T>): Promise<T> {
  const release = race.hold();
  try {
    return await work();
  } finally {
    release();
  }
}

export interface RegistryOptions {
  readonly defaultTimeoutMs: number;
  readonly observationTokens: number;
  readonly counter: TokenCounter;
}

export class ToolRegistry {
  private view: ToolView;

  /**
   * `source` adds tools that come and go (MCP servers), read before each model call and each
   * call's check. It must return the same array until its tools changed.
   */
  constructor(
    private readonly tools: readonly Tool[],
    private readonly options: RegistryOptions,
    private readonly source?: () => readonly Tool[],
  ) {
    this.view = toolView(tools, source?.());
  }

  /** The cap a result is cut to before the model reads it. */
  get observationTokens(): number {
    return this.options.observationTokens;
  }

  private current(): ToolView {
    const extra = this.source?.();
    if (extra !== this.view.extra) this.view = toolView(this.tools, extra);
    return this.view;
  }

  get schemas(): readonly ToolSchema[] {
    return this.current().schemas;
  }

  get names(): string[] {
    return [...this.current().byName.keys()];
  }

  get(name: string): Tool | undefined {
    return this.current().byName.get(name);
  }

  prepare(call: ToolCall): PreparedCall {
    const signature = callSignature(call.name, call.arguments);
    const tool = this.get(call.name);
    if (!tool) {
      const available = this.names.length > 0 ? this.names.join(", ") : "(none)";
      const problem = call.name.trim() === "" ? "the tool call had no tool name" : `there is no tool named "${call.name}"`;
      return { kind: "rejected", call, signature, outcome: "unknown_tool", message: `Error: ${problem}. Available tools: ${available}.` };
    }
    let raw: unknown;
    try {
      raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return {
        kind: "rejected",
        call,
        signature,
        outcome: "invalid_args",
        message: `Error: the arguments for ${tool.name} are not valid JSON (${(error as Error).message}). ${SEND_JSON_HINT}`,
      };
    }
    const parsed = tool.schema.safeParse(raw);
    if (!parsed.success) {
      return {
        kind: "rejected",
        call,
        signature,
        outcome: "invalid_args",
        message: `Error: invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}. ${FIX_ARGS_HINT}`,
      };
    }
    return { kind: "ready", call, signature, tool, args: parsed.data };
  }

  /** Runs a prepared call under its timeout and the run's signal. Never rejects. */
  async execute(prepared: Extract<PreparedCall, { kind: "ready" }>, context: ToolContext): Promise<Execution> {
    const timeoutMs = prepared.tool.timeoutMs ?? this.options.defaultTimeoutMs;
    if (context.signal.aborted)
      return {
        outcome: "timeout",
        result: `Timeout: ${prepared.tool.name} was not started because the run's time ran out.`,
        durationMs: 0,
      };
    const started = performance.now();
    const race = new ToolRace(context.signal, timeoutMs);
    try {
      const { ask } = context;
      const toolContext: ToolContext = {
        ...context,
        callId: prepared.call.id,
        get signal() {
          return race.signal;
        },
        // The call's timeout stands still while a person answers its question.
        ...(ask ? { ask: (question, withdrawn) => held(race, () => ask(question, withdrawn)) } : {}),
      };
      const value = await race.settle(prepared.tool.execute(prepared.args, toolContext));
      const durationMs = performance.now() - started;
      const files = value instanceof ToolOutput && value.files.length > 0 ? { files: value.files } : {};
      return { outcome: "ok", result: resultText(value), durationMs, ...files };
    } catch (error) {
      const durationMs = performance.now() - started;
      if (error instanceof ToolTimeout) {
        return { outcome: "timeout", result: `Timeout: ${prepared.tool.name} did not finish within ${timeoutMs} ms.`, durationMs };
      }
      if (context.signal.aborted) {
        return { outcome: "timeout", result: `Timeout: ${prepared.tool.name} was stopped because the run's time ran out.`, durationMs };
      }
      return { outcome: "error", result: `Error: ${errorText(error)}`, durationMs };
    }
  }

  /** What enters the messages: the result cut to the observation cap, with a note when cut. */
  observation(result: string): string {
    const { text, truncated } = this.options.counter.truncate(result, this.options.observationTokens);
    if (!truncated) return text;
    return `${text}\n…[truncated: the full result had ${result.length.toLocaleString("en-US")} characters; this shows the first ${this.options.observationTokens.toLocaleString("en-US")} tokens]`;
  }
}
