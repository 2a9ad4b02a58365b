// The loop setup of each run: which model, which tools (built in, the process's, the surface's,
// the MCP servers' that are up, as the channel's settings allow, every write behind the ledger),
// which guard figures. Built once per distinct channel setup and kept, since a setup shares its
// token counter and tool registry between runs.
import type { Logger } from "../../logger.js";
import type { Config } from "../../config.js";
import type { RunSettings } from "../../governance/channel-settings.js";
import type { RunPolicy } from "../../governance/run-policy.js";
import { createLoopDeps } from "../../agent/loop/loop-deps.js";
import type { LoopDeps } from "../../agent/loop/loop-types.js";
import { builtinTools } from "../../agent/tools/builtin.js";
import type { Model, PersonForms, Surface, TaskOrigin, Tool } from "../../contracts/types.js";
import { TokenCounter } from "../../tokens/token-counter.js";
import type { RunFiles } from "./run-files.js";
import type { WriteLedger } from "../worker/write-ledger.js";

export interface LoopSetupsDeps {
  readonly config: Config;
  readonly model: Model;
  /** The model client for a channel's `model` setting; without it every channel uses `model`. */
  readonly modelFor?: (name: string) => Model;
  /** Tools that come and go (the MCP servers that are up); same array until they changed. */
  readonly toolSource?: () => readonly Tool[];
  /** The process's own tools beyond the built-in ones, on every surface. */
  readonly tools?: readonly Tool[];
  /** The surface's chat tools, once it is attached. */
  readonly surfaceTools: (surface: Surface) => readonly Tool[];
  readonly settingsOf: (origin: TaskOrigin) => RunSettings;
  readonly runPolicy?: RunPolicy;
  readonly ledger: WriteLedger;
  /** The file tools, the image-aware model and the answer's files. */
  readonly files: RunFiles;
  /** The counter of the configured model, shared with the conversation memory. */
  readonly counter: TokenCounter;
  readonly logger: Logger;
  readonly clock: () => number;
  /** How a call's tool asks the run's requester (an MCP server's form). */
  readonly forms?: PersonForms;
}

export interface LoopSetups {
  /** The setup for a run from this origin, built on first use. */
  for(origin: TaskOrigin): LoopDeps;
  /** Every tool a run on this surface may be offered before the channel's settings and the MCP servers. */
  toolsOf(surface: Surface): readonly Tool[];
  /** Whether a tool of that name (own or MCP) writes. */
  isWrite(surface: Surface, name: string): boolean;
  /** Forgets every setup built (a surface attached with new tools). */
  clear(): void;
}

/** Distinct channel setups kept built at once; more are rebuilt on demand. */
const MAX_LOOP_SETUPS = 64;

export function createLoopSetups(deps: LoopSetupsDeps): LoopSetups {
  const { config, ledger } = deps;
  const built = new Map<string, LoopDeps>();
  const counters = new Map<string, TokenCounter>([[config.model.name, deps.counter]]);
  const counterFor = (name: string) => counters.get(name) ?? counters.set(name, TokenCounter.forModel(name)).get(name)!;
  const { runPolicy } = deps;
  const usageCheck: LoopDeps["usageCheck"] = runPolicy ? (run, tokens) => runPolicy.recordUsage(run.origin, tokens) : undefined;

  // Every write goes through the ledger: it runs at most once, also across a crash.
  const toolsOf = (surface: Surface) =>
    [...builtinTools, ...(deps.tools ?? []), ...deps.files.tools(surface), ...deps.surfaceTools(surface)].map((tool) => ledger.guard(tool));

  /** The MCP tools a channel may use, as a source that keeps its array until the servers' tools change. */
  const dynamicTools = (settings: RunSettings): (() => readonly Tool[]) | undefined => {
    const source = deps.toolSource;
    if (!source) return undefined;
    let seen: readonly Tool[] | undefined;
    let allowed: readonly Tool[] = [];
    return () => {
      const current = source();
      if (current !== seen) {
        seen = current;
        allowed = current.filter((tool) => settings.toolAllowed(tool.name)).map((tool) => ledger.guard(tool));
      }
      return allowed;
    };
  };

  function build(settings: RunSettings, tools: readonly Tool[], modelName: string, surface: Surface): LoopDeps {
    // A channel's own model gets its own window from the model table; AGENT_CONTEXT_TOKENS describes OPENAI_MODEL.
    const guards = modelName === config.model.name ? config.guards : { ...config.guards, contextTokens: undefined };
    const setup = createLoopDeps({
      model: deps.files.model(modelName === config.model.name || !deps.modelFor ? deps.model : deps.modelFor(modelName)),
      modelName,
      tools,
      toolSource: dynamicTools(settings),
      guards: settings.maxSteps === undefined ? guards : { ...guards, maxSteps: settings.maxSteps },
      toolPolicy: config.toolPolicy,
      approvalTimeoutMs: config.approvalTimeoutMs,
      untrustedWrites: config.untrustedWrites,
      logger: deps.logger,
      clock: deps.clock,
      counter: counterFor(modelName),
    });
    const answerFiles = deps.files.answerFiles(surface);
    const forms = deps.forms ? { forms: deps.forms } : {};
    return { ...setup, ...(usageCheck ? { usageCheck } : {}), ...(answerFiles ? { answerFiles } : {}), ...forms };
  }

  return {
    for(origin) {
      const settings = deps.settingsOf(origin);
      const tools = toolsOf(origin.surface).filter((tool) => settings.toolAllowed(tool.name) && (tool.availableTo?.(origin) ?? true));
      const modelName = settings.model !== undefined && deps.modelFor ? settings.model : config.model.name;
      const key = JSON.stringify([origin.surface, modelName, settings.maxSteps, tools.map((tool) => tool.name), settings.toolRules]);
      const found = built.get(key);
      if (found) return found;
      if (built.size >= MAX_LOOP_SETUPS) built.clear();
      const setup = build(settings, tools, modelName, origin.surface);
      built.set(key, setup);
      return setup;
    },
    toolsOf,
    isWrite: (surface, name) =>
      [...toolsOf(surface), ...(deps.toolSource?.() ?? [])].some((tool) => tool.name === name && tool.effect === "write"),
    clear: () => built.clear(),
  };
}
