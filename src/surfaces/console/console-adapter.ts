// Console mode: the bot in a terminal, on the same runner as Slack and Discord, as a surface
// under the core (its commands are the core's). One session reads lines in order (a line typed
// while a run works waits its turn), shows a progress line per tool call, the answer, and asks
// `approve? [y/N]` before any write action: the console waits for its own runs; only a run nobody
// waits for here (a schedule's slot) shows through its display (console-display.ts). Like a chat
// box: a paste is one message (paste-input.ts), Ctrl-C stops the smallest thing going on
// (ctrl-c.ts), and an approval a stopped process left is asked again.
import { z } from "zod";
import type { Logger } from "pino";
import type { AgentService } from "../../runs/service.js";
import { renderTrace } from "../../agent/loop/trace.js";
import type { EventSink, PendingApproval, RunOutcome, StepRecord, TaskOrigin, Tool } from "../../agent/types.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import type { ChatSurface } from "../core/surface.js";
import { isApproval, parseCommand, type ConsoleCommand } from "./console-commands.js";
import { consoleFiles, createFileDesk } from "./console-files.js";
import { createConsoleDisplay } from "./console-display.js";
import { consoleFormat, osUserName } from "./console-format.js";
import { createConsoleOutput } from "./console-output.js";
import {
  answerText,
  approvalRequest,
  bannerText,
  continuingText,
  decisionText,
  echoText,
  expiredText,
  helpText,
  noticeText,
  progressLine,
  startOverText,
  statusText,
  type ModelDescription,
} from "./console-text.js";
import { ctrlC } from "./ctrl-c.js";
import { DEMO_LOOP_QUESTION, type DemoLoopRunner } from "./demo-loop.js";
import { createLineQueue } from "./line-queue.js";
import { openConsoleInput, type ConsoleInput } from "./console-input.js";
import { createSlotApprovals } from "./slot-approvals.js";

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
  /** Where relative /attach paths and `filesDir` (answer files, default data/files) start; default the working directory. */
  readonly cwd?: string;
  readonly filesDir?: string;
  /** Tools of its own for the console's runs (tests); none in the app. */
  readonly tools?: readonly Tool[];
}

export interface ConsoleSurface extends ChatSurface {
  /** A line the operator must see (a rejected settings edit, a policy warning), shown after the banner. */
  notice(text: string): void;
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
  const files = createFileDesk({ ...options, load: (fileId) => service.answerFile(origin.conversationKey, fileId) });
  let core: SurfaceCore<unknown> | undefined;
  const lines = createLineQueue();
  let input: ConsoleInput | undefined;
  let idle = false;
  let stopped = false;
  /** Ctrl-C: the person left, rather than the process being stopped. */
  let interrupted = false;
  let sessionOver = false;
  let lastSteps: readonly StepRecord[] | undefined;
  /** The approval asked now: `expired` when its time ran out elsewhere, `denied` by Ctrl-C. */
  let waiting: { readonly runId: string; readonly expired: AbortController; readonly denied: AbortController } | undefined;
  /** The run in progress (from its first event) and whether Ctrl-C already asked it to stop. */
  let running: { readonly runId: string; stopping: boolean } | undefined;
  /** Notices that came before the banner was shown; undefined once it was. */
  let early: string[] | undefined = [];
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
    input?.prompt(text);
  };

  /** An approval left by an earlier process may expire any moment: the core hands it here from the start. */
  function expired(pending: PendingApproval, outcome: RunOutcome): void {
    slotApprovals.drop(pending.runId);
    if (waiting?.runId === pending.runId) waiting.expired.abort();
    lastSteps = outcome.steps;
    out.line(`\n${expiredText(pending, outcome)}\n`);
    if (idle) prompt(PROMPT);
  }

  /** The person's decision on one write call; undefined when there is nothing more to show. */
  async function askApproval(pending: PendingApproval): Promise<RunOutcome | undefined> {
    out.line(approvalRequest(pending));
    const expired = new AbortController();
    const denied = new AbortController();
    waiting = { runId: pending.runId, expired, denied };
    prompt(APPROVE_PROMPT);
    const answer = await lines.nextFresh(AbortSignal.any([expired.signal, denied.signal]));
    waiting = undefined;
    if (expired.signal.aborted) return undefined;
    if (stopped) {
      out.line("\n(Left undecided: it is asked again at the next start, until it expires.)");
      return undefined;
    }
    if (denied.signal.aborted) out.line("(Ctrl-C: denied.)");
    else if (answer === undefined) out.line("\n(No answer: denied.)");
    else if (!out.isTerminal) out.line(answer);
    const decision = answer !== undefined && isApproval(answer) ? "approve" : "deny";
    const result = await service.decide({ runId: pending.runId, callId: pending.callId, decision, decidedBy: requester }, sink);
    if (result.kind === "resumed" || result.kind === "expired") return result.outcome;
    out.line(decisionText(result));
    return undefined;
  }

  // A slot's run shows the rest through the display once decided; a failure to decide is the log's.
  const slotApprovals = createSlotApprovals(
    (pending) =>
      askApproval(pending).then(
        () => void (idle && prompt(PROMPT)),
        (error: unknown) => logger.error({ err: error, runId: pending.runId }, "could not decide a schedule's approval"),
      ),
    () => idle && !waiting && !stopped,
  );

  /** Shows the outcome; a pause asks for approval and goes on with the run until it answers. */
  async function show(first: RunOutcome): Promise<void> {
    let outcome: RunOutcome | undefined = first;
    while (outcome) {
      lastSteps = outcome.steps;
      out.clearStatus();
      if (outcome.status === "answered") {
        out.line(answerText(outcome));
        for (const line of await files.save(outcome.files ?? [])) out.line(line);
        return;
      }
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
      case "attach": {
        const attached = await files.attach(command.path);
        if (attached.kind === "refused") return out.line(attached.message);
        return show(await service.ask({ origin, text: command.question, files: [attached.file] }, sink));
      }
      case "trace":
        return out.line(lastSteps ? renderTrace(lastSteps, { maxChars: TRACE_CHARS }) : "No run yet.");
      case "command":
        return core?.command({ at: here, name: command.name, text: command.text });
      case "help":
        return out.line(helpText());
      case "new":
        return out.line(startOverText(await service.memory.startOver(CONSOLE_CONVERSATION_KEY)));
      case "bad_command":
        return out.line(command.message);
    }
  }

  /** What the last session left: how many turns the conversation holds, and approvals still undecided. */
  async function resumeConversation(): Promise<void> {
    const turns = await service.memory.earlierTurns(CONSOLE_CONVERSATION_KEY);
    if (turns > 0) out.line(continuingText(turns));
    for (const pending of await service.waitingApprovals(CONSOLE_CONVERSATION_KEY)) {
      if (stopped) break;
      out.line("A write asked for before the last stop is still waiting for your decision:");
      const outcome = await askApproval(pending);
      if (outcome) await show(outcome);
      out.line("");
    }
  }

  async function session(): Promise<void> {
    out.line(bannerText(options.model, out.width()));
    for (const text of early ?? []) out.line(noticeText(text));
    early = undefined;
    await resumeConversation().catch((error: unknown) => {
      logger.warn({ err: error }, "could not pick up the last session's conversation or approvals");
      out.line(`Could not pick up where the last session left off (${error instanceof Error ? error.message : String(error)}).`);
    });
    while (!stopped) {
      idle = true;
      prompt(PROMPT);
      slotApprovals.pump();
      const line = await lines.next();
      idle = false;
      if (line === undefined) {
        // End of input (Ctrl-D) leaves the cursor after the prompt; Ctrl-C and stop() already moved on.
        if (!stopped) out.line("");
        break;
      }
      // Lines the person did not see echoed after this prompt are shown, so the transcript reads in order.
      if (line.early || !out.isTerminal) out.line(echoText(line.text));
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

  /** Ctrl-C: the smallest thing going on stops (ctrl-c.ts). */
  function onCtrlC(): void {
    if (stopped || !input) return;
    const action = ctrlC({
      typed: input.typed(),
      approving: waiting !== undefined,
      stoppable: running !== undefined && !running.stopping && !idle,
    });
    if (action === "clear_line") {
      input.clearLine();
      return;
    }
    if (action === "deny") {
      out.line("");
      waiting?.denied.abort();
      return;
    }
    if (action === "stop_run" && running) {
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
    input?.close();
    endSession();
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
    files: consoleFiles(),
    upgrade: (stored) => ({ origin: { ...stored, scope: stored.scope ?? origin.scope } }),
    // The console's approvals are asked at its prompt, never posted.
    refs: { keyPrefix: "console:approval", schema: z.never() },
    closed,
    notice(text) {
      if (early) return void early.push(text);
      // At the prompt the notice takes the prompt's line, and the prompt comes back under it.
      if (idle) out.write(out.isTerminal ? "\r\u001b[2K" : "\n");
      out.line(noticeText(text));
      if (idle) prompt(PROMPT);
    },
    post: print,
    whisper: print,
    directMessage: (_person, text) => print(here, text),
    settleApproval: async () => {},
    expired,
    waitsForOwnRuns: true,
    display: createConsoleDisplay(
      (text) => {
        out.line(`\n${text}\n`);
        if (idle && !waiting) prompt(PROMPT);
      },
      (pending) => slotApprovals.offer(pending),
    ),

    async start(flows) {
      core = flows;
      input = openConsoleInput({
        source: options.input ?? process.stdin,
        output: options.output ?? process.stdout,
        terminal: out.isTerminal,
        onLine(line) {
          out.leaveStatus();
          lines.push(line);
        },
        onEnd: () => lines.end(),
        onCtrlC,
      });
      void session()
        .catch((error: unknown) => logger.error({ err: error }, "the console session failed"))
        .finally(() => {
          sessionOver = true;
          input?.close();
          endSession();
        });
    },

    async stopIntake() {
      if (!stopped && !sessionOver) out.line(idle || waiting ? "\nStopping." : BUSY_STOP);
      stopped = true;
      lines.close();
      input?.close();
      endSession();
    },
    close: async () => {},
  };
}
