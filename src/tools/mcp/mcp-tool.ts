// One MCP tool as a Tool the loop can call: the server's description and JSON schema for the
// model, the arguments checked against that schema before anything is sent, the effect taken
// from the server's annotations, and the call cancelled through the protocol when the run's
// timeout or deadline aborts it.
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AskPerson, TaskOrigin, Tool, ToolContext, ToolEffect } from "../../contracts/types.js";
import { ToolOutput } from "../../agent/tools/tool-output.js";
import type { ApprovalMode } from "./mcp-config.js";
import { toolResultFiles, toolResultText } from "./tool-result.js";

export interface CallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly onProgress?: (detail: string) => void;
  /** Who the call is for: a server that acts as the person calls with their connection. */
  readonly origin?: TaskOrigin;
  /** How the server's questions during this call reach the run's requester; absent: they are refused. */
  readonly ask?: AskPerson;
  readonly runId?: string;
}

/** What a tool needs of its server: a call that rejects when the server is down or drops mid-call. */
export interface ToolCaller {
  readonly server: string;
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult>;
  /** A server that acts as the person: the server they must connect before a call from `origin` can run, if any. */
  needsConnection?(origin: TaskOrigin): Promise<string | undefined>;
}

interface McpToolInput {
  /** The prefixed name the model sees (see tool-names.ts). */
  readonly name: string;
  readonly definition: McpToolDefinition;
  readonly caller: ToolCaller;
  readonly approval: ApprovalMode;
  /** The server's `reads` (mcp.json) names this tool. */
  readonly listedAsRead: boolean;
  readonly timeoutMs: number;
}

const validators = new AjvJsonSchemaValidator();

/**
 * The protocol's only trustworthy read signal: everything not marked read-only may change
 * something, unless the operator listed it under the server's `reads` (for servers that give
 * no hints) and the server does not say the opposite.
 */
export function effectOf(definition: McpToolDefinition, operatorSaysRead = false): ToolEffect {
  const hints = definition.annotations;
  if (hints?.readOnlyHint === true) return "read";
  const saysWrite = hints?.readOnlyHint === false || hints?.destructiveHint === true;
  return operatorSaysRead && !saysWrite ? "read" : "write";
}

/** The server's own layer of the policy: `writes` asks for writes only, `always` for every call, `never` trusts the server. */
export function serverApproval(mode: ApprovalMode, effect: ToolEffect): NonNullable<Tool["approval"]> {
  if (mode === "always") return "asks";
  if (mode === "never") return "runs without asking";
  return effect === "write" ? "asks" : "runs without asking";
}

/** Throws when the schema can't be compiled; the caller skips that tool. */
function argumentSchema(jsonSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const validate = validators.getValidator<Record<string, unknown>>(jsonSchema as never);
  return z.custom<Record<string, unknown>>().superRefine((value, context) => {
    const result = validate(value);
    if (!result.valid)
      context.addIssue({ code: "custom", message: result.errorMessage.replaceAll("data/", "").replaceAll("data ", "the arguments ") });
  });
}

function progressText(progress: { progress: number; total?: number; message?: string }): string {
  const count = progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
  return progress.message ? `${progress.message} (${count})` : count;
}

/** Past the tool's own timeout, so the registry's timeout (and its clear observation) comes first. */
const PROTOCOL_TIMEOUT_MARGIN_MS = 5_000;
/**
 * A call whose server may ask the person: the tool's timeout stands still while they answer, so the
 * protocol's own timer can't know the end; the registry's signal (timeout, deadline, Stop) ends it.
 */
const ASKING_PROTOCOL_TIMEOUT_MS = 2_147_483_647;

/** The SDK's options for the tools/call of a call made with `options`. */
export function protocolOptions(options: CallOptions): RequestOptions {
  return {
    signal: options.signal,
    timeout: options.ask ? ASKING_PROTOCOL_TIMEOUT_MS : options.timeoutMs + PROTOCOL_TIMEOUT_MARGIN_MS,
    ...(options.onProgress ? { onprogress: (progress) => options.onProgress?.(progressText(progress)) } : {}),
  };
}

/** Throws when the tool's input schema is unusable; the server skips that tool with one log line. */
export function createMcpTool(input: McpToolInput): Tool<Record<string, unknown>> {
  const { definition, caller } = input;
  const { $schema: _dialect, ...parameters } = definition.inputSchema as Record<string, unknown>;
  const schema = argumentSchema(parameters);
  const effect = effectOf(definition, input.listedAsRead);
  return {
    name: input.name,
    description: definition.description ?? definition.title ?? `${definition.name} (from the MCP server ${caller.server})`,
    schema,
    parameters,
    effect,
    timeoutMs: input.timeoutMs,
    approval: serverApproval(input.approval, effect),
    provider: { server: caller.server, tool: definition.name, annotations: definition.annotations },
    ...(caller.needsConnection ? { needsConnection: (context: ToolContext) => caller.needsConnection!(context.origin) } : {}),
    async execute(args, context: ToolContext) {
      const result = await caller.callTool(definition.name, args, {
        signal: context.signal,
        timeoutMs: input.timeoutMs,
        onProgress: context.progress && ((detail) => context.progress?.(detail)),
        origin: context.origin,
        ...(context.ask ? { ask: context.ask, runId: context.runId } : {}),
      });
      const converted = toolResultText(result);
      if (!converted.ok) throw new Error(converted.text);
      return withAnswerFiles(converted.text, result, context);
    },
  };
}

/** Where the surface posts files, the result's images and embedded resources go out with the answer; elsewhere their note stays. */
async function withAnswerFiles(text: string, result: CallToolResult, context: ToolContext): Promise<string | ToolOutput> {
  const sink = context.answerFiles;
  if (!sink) return text;
  const found = toolResultFiles(result);
  if (found.length === 0) return text;
  const fitting = found.filter((file) => file.data.byteLength <= sink.maxBytes);
  const tooBig = found.filter((file) => file.data.byteLength > sink.maxBytes).map((file) => file.name);
  const files = await sink.attach(context, fitting);
  const notes = [
    ...(files.length > 0 ? [`[attached to the answer: ${files.map((file) => file.name).join(", ")}]`] : []),
    ...(tooBig.length > 0 ? [`[too big to attach: ${tooBig.join(", ")}]`] : []),
  ];
  return new ToolOutput(`${text}\n${notes.join("\n")}`, files);
}
