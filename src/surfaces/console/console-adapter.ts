// Console mode: the bot in a terminal, on the same runner as Slack and Discord, as a surface
// under the core (its commands are the core's). One session reads lines in order (a line typed
// while a run works waits its turn), shows a progress line per tool call, the answer, and asks
// `approve? [y/N]` before any write action: the console waits for its own runs, so it needs no
// run display.
import { userInfo } from "node:os";
import { createInterface, type Interface } from "node:readline";
import { z } from "zod";
import type { Logger } from "pino";
import type { AgentService } from "../../runs/service.js";
import { renderTrace } from "../../agent/trace.js";
import type { EventSink, PendingApproval, RunOutcome, StepRecord, TaskOrigin, Tool } from "../../agent/types.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { ChatSurface, Spot, TextFormat } from "../core/surface.js";
import { isApproval, parseCommand, type ConsoleCommand } from "./console-commands.js";
import { createConsoleOutput } from "./console-output.js";
import {
  answerText,
  approvalRequest,
  clean,
  bannerText,
  decisionText,
  expiredText,
  helpText,
  progressLine,
  statusText,
  type ModelDescription,
} from "./console-text.js";
import { DEMO_LOOP_QUESTION, type DemoLoopRunner } from "./demo-loop.js";
import { createLineQueue } from "./line-queue.js";

export interface ConsoleAdapterOptions {
  readonly service: AgentService;
  readonly runDemoLoop: DemoLoopRunner;
  readonly model: ModelDescription;
  readonly logger: Logger;
  /** Defaults to process.stdin. */
  readonly input?: NodeJS.ReadableStream;
  /** Defaults to process.stdout. */
  readonly output?: NodeJS.WritableStream;
  /** The requester's name; defaults to the OS user name. */
  readonly username?: string;
  /** Tools of its own for the console's runs (tests); none in the app. */
  readonly tools?: readonly Tool[];
}

export interface ConsoleSurface extends ChatSurface {
  /** Resolves when the person is done: /quit, end of input (Ctrl-D), Ctrl-C, or the app stopping. */
  readonly closed: Promise<void>;
}

export const CONSOLE_CONVERSATION_KEY = "console:local";
const DEMO_LOOP_CONVERSATION_KEY = "console:demo-loop";
const PROMPT = "> ";
const APPROVE_PROMPT = "approve? [y/N] ";
const TRACE_CHARS = 20_000;
/** The run in flight gets the runner's drain time (app.ts) before the process exits. */
const BUSY_STOP = "Stopping: the run in progress gets a few seconds to reach a safe point.";
const RUN_STOP = "\n(Stopping this run; Ctrl-C again leaves.)";

function osUserName(): string {
  try {
    return userInfo().username || "you";
  } catch {
    return "you";
  }
}

/** Terminal-safe text; ids are shown as they are, links after their label. */
const consoleFormat: TextFormat = {
  plain: clean,
  person: clean,
  role: clean,
  code: clean,
  block: clean,
  link: (url, label) => `${label} ${clean(url)}`,
  maxChars: 20_000,
};

export function createConsoleSurface(options: ConsoleAdapterOptions): ConsoleSurface {
  const { service, logger } = options;
  const out = createConsoleOutput(options.output ?? process.stdout);
  const requester = { id: "console", name: options.username ?? osUserName() };
  const origin: TaskOrigin = {
    surface: "console",
    conversationKey: CONSOLE_CONVERSATION_KEY,
    requester,
    scope: { dm: false, roles: [] },
    place: {},
  };
  const here: Spot = { origin };
  let core: SurfaceCore<unknown> | undefined;
  const lines = createLineQueue();
  let reader: Interface | undefined;
  let readerOpen = false;
  let idle = false;
  let stopped = false;
  /** Ctrl-C: the person left, rather than the process being stopped. */
  let interrupted = false;
  let sessionOver = false;
  let lastSteps: readonly StepRecord[] | undefined;
  let waiting: { readonly runId: string; readonly expired: AbortController } | undefined;
  /** The run in progress (from its first event) and whether Ctrl-C already asked it to stop. */
  let running: { readonly runId: string; stopping: boolean } | undefined;
  let endSession!: () => void;
  const closed = new Promise<void>((resolve) => (endSession = resolve));

  const sink: EventSink = (event) => {
    if (event.type === "step_started" && running?.runId !== event.runId) running = { runId: event.runId, stopping: false };
    const line = progressLine(event);
    if (line !== undefined) return out.line(line);
    const status = statusText(event);
    if (status !== undefined) out.status(status);
  };

  /** On a terminal readline draws the prompt (and redraws it while editing); elsewhere it is plain text. */
  const prompt = (text: string) => {
    if (!out.isTerminal) return out.write(text);
    if (!reader || !readerOpen) return;
    reader.setPrompt(text);
    reader.prompt(true);
  };

  /** An approval left by an earlier process may expire any moment: the core hands it here from the start. */
  function expired(pending: PendingApproval, outcome: RunOutcome): void {
    if (waiting?.runId === pending.runId) waiting.expired.abort();
    lastSteps = outcome.steps;
    out.line(`\n${expiredText(pending, outcome)}\n`);
    if (idle) prompt(PROMPT);
  }

  /** The person's decision on one write call; undefined when there is nothing more to show. */
  async function askApproval(pending: PendingApproval): Promise<RunOutcome | undefined> {
    out.line(approvalRequest(pending));
    const expired = new AbortController();
    waiting = { runId: pending.runId, expired };
    prompt(APPROVE_PROMPT);
    const answer = await lines.nextFresh(expired.signal);
    waiting = undefined;
    if (expired.signal.aborted) return undefined;
    if (stopped) {
      out.line("\n(Left undecided: the request stays open until it expires.)");
      return undefined;
    }
    if (answer === undefined) out.line("\n(No answer: denied.)");
    else if (!out.isTerminal) out.line(answer);
    const decision = answer !== undefined && isApproval(answer) ? "approve" : "deny";
    const result = await service.decide({ runId: pending.runId, callId: pending.callId, decision, decidedBy: requester }, sink);
    if (result.kind === "resumed" || result.kind === "expired") return result.outcome;
    out.line(decisionText(result));
    return undefined;
  }

  /** Shows the outcome; a pause asks for approval and goes on with the run until it answers. */
  async function show(first: RunOutcome): Promise<void> {
    let outcome: RunOutcome | undefined = first;
    while (outcome) {
      lastSteps = outcome.steps;
      out.clearStatus();
      if (outcome.status === "answered") return out.line(answerText(outcome));
      outcome = await askApproval(outcome.pending);
    }
  }

  async function perform(command: Exclude<ConsoleCommand, { kind: "quit" | "empty" }>): Promise<void> {
    switch (command.kind) {
      case "ask":
        return show(await service.ask({ origin, text: command.text }, sink));
      case "demo_loop": {
        const text = command.question ?? DEMO_LOOP_QUESTION;
        out.line(`Demo: a model that keeps making the same call, asked "${text}".`);
        return show(await options.runDemoLoop({ origin: { ...origin, conversationKey: DEMO_LOOP_CONVERSATION_KEY }, text }, sink));
      }
      case "trace":
        return out.line(lastSteps ? renderTrace(lastSteps, { maxChars: TRACE_CHARS }) : "No run yet.");
      case "command":
        return core?.command({ at: here, name: command.name, text: "" });
      case "help":
        return out.line(helpText());
      case "bad_command":
        return out.line(command.message);
    }
  }

  async function session(): Promise<void> {
    out.line(bannerText(options.model, out.width()));
    while (!stopped) {
      idle = true;
      prompt(PROMPT);
      const line = await lines.next();
      idle = false;
      if (line === undefined) {
        // End of input (Ctrl-D) leaves the cursor after the prompt; Ctrl-C and stop() already moved on.
        if (!stopped) out.line("");
        break;
      }
      // Lines the person did not see echoed after this prompt are shown, so the transcript reads in order.
      if (line.early || !out.isTerminal) out.line(line.text);
      const command = parseCommand(line.text);
      if (command.kind === "quit") break;
      if (command.kind === "empty") continue;
      try {
        await perform(command);
        running = undefined;
      } catch (error) {
        running = undefined;
        logger.error({ err: error }, "console command failed");
        out.clearStatus();
        out.line(`That failed: ${error instanceof Error ? error.message : String(error)}. Try again, or /quit.`);
      }
      out.line("");
    }
    if (!stopped || interrupted) out.line("Bye.");
  }

  function closeReader(): void {
    if (!readerOpen) return;
    readerOpen = false;
    reader?.close();
  }

  const print = async (_at: Spot, text: string) => {
    out.line(text);
    return true;
  };

  return {
    name: "console",
    format: consoleFormat,
    linkStyle: "plain",
    askHint: "type a question at the prompt.",
    tools: options.tools ?? [],
    upgrade: (stored) => ({ origin: { ...stored, scope: stored.scope ?? origin.scope } }),
    // The console's approvals are asked at its prompt, never posted.
    refs: { keyPrefix: "console:approval", schema: z.never() },
    closed,
    post: print,
    whisper: print,
    directMessage: (_person, text) => print(here, text),
    settleApproval: async () => {},
    expired,

    async start(flows) {
      core = flows;
      reader = createInterface({ input: options.input ?? process.stdin, output: options.output ?? process.stdout });
      readerOpen = true;
      reader.on("line", (line) => {
        out.leaveStatus();
        lines.push(line);
      });
      reader.on("close", () => {
        readerOpen = false;
        lines.end();
      });
      // On a terminal Ctrl-C reaches readline, not the process. During a run the first one stops the run
      // (its summary follows) and the session goes on; otherwise, or again, leave at once.
      reader.on("SIGINT", () => {
        if (stopped) return;
        if (running && !running.stopping && !idle && !waiting) {
          running.stopping = true;
          out.line(RUN_STOP);
          service
            .stop({ runId: running.runId, stoppedBy: requester, surface: "console" })
            .catch((error: unknown) => logger.warn({ err: error }, "could not stop the run"));
          return;
        }
        stopped = interrupted = true;
        out.line(idle || waiting ? "" : BUSY_STOP);
        lines.close();
        closeReader();
        endSession();
      });
      void session()
        .catch((error: unknown) => logger.error({ err: error }, "the console session failed"))
        .finally(() => {
          sessionOver = true;
          closeReader();
          endSession();
        });
    },

    async stopIntake() {
      if (!stopped && !sessionOver) out.line(idle || waiting ? "\nStopping." : BUSY_STOP);
      stopped = true;
      lines.close();
      closeReader();
      endSession();
    },
    close: async () => {},
  };
}
