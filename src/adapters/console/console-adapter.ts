// Console mode: the bot in a terminal, on the same runner as Slack and Discord, as a surface
// under the core (its commands are the core's). One session reads lines in order (a line typed
// while a run works waits its turn), shows a progress line per tool call, the answer, and asks
// `approve? [y/N]` before any write action: the console waits for its own runs; only a run nobody
// waits for here (a schedule's slot) shows through its display (console-display.ts). Like a chat
// box: a paste is one message (paste-input.ts), Ctrl-C stops the smallest thing going on
// (ctrl-c.ts), and an approval a stopped process left is asked again. What a typed line does is
// console-lines.ts; how an approval is asked at the prompt, console-approvals.ts.
import { z } from "zod";
import type { Logger } from "../../logger.js";
import type { AgentService } from "../../runs/api/agent-service.js";
import type { EventSink, TaskOrigin, Tool } from "../../contracts/types.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import type { ChatSurface } from "../core/surface.js";
import { createConsoleApprovals } from "./console-approvals.js";
import { parseCommand } from "./console-commands.js";
import { createConsoleLines } from "./console-lines.js";
import { consoleFiles, createFileDesk } from "./console-files.js";
import { createConsoleDisplay } from "./console-display.js";
import { consoleFormat, osUserName } from "./console-format.js";
import { createConsoleOutput } from "./console-output.js";
import { bannerText, continuingText, echoText, noticeText, progressLine, statusText, type ModelDescription } from "./console-text.js";
import { ctrlC } from "./ctrl-c.js";
import type { DemoLoopRunner } from "./demo-loop.js";
import { createLineQueue } from "./line-queue.js";
import { openConsoleInput, type ConsoleInput } from "./console-input.js";

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
const PROMPT = "> ";
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

  // An approval left by an earlier process may expire any moment: the core hands it over from the start.
  const approvals = createConsoleApprovals({
    service,
    out,
    lines,
    requester,
    sink,
    logger,
    prompt,
    promptIfIdle: () => void (idle && prompt(PROMPT)),
    free: () => idle,
    stopped: () => stopped,
    ended: (steps) => typed.noteSteps(steps),
  });

  const typed = createConsoleLines({
    service,
    runDemoLoop: options.runDemoLoop,
    out,
    files,
    approvals,
    origin,
    sink,
    core: () => core,
  });

  /** What the last session left: how many turns the conversation holds, and approvals still undecided. */
  async function resumeConversation(): Promise<void> {
    const turns = await service.memory.earlierTurns(CONSOLE_CONVERSATION_KEY);
    if (turns > 0) out.line(continuingText(turns));
    for (const pending of await service.waitingApprovals(CONSOLE_CONVERSATION_KEY)) {
      if (stopped) break;
      out.line("A write asked for before the last stop is still waiting for your decision:");
      const outcome = await approvals.ask(pending);
      if (outcome) await typed.show(outcome);
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
      approvals.slots.pump();
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
        await typed.perform(command);
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
      approving: approvals.asking(),
      stoppable: running !== undefined && !running.stopping && !idle,
    });
    if (action === "clear_line") {
      input.clearLine();
      return;
    }
    if (action === "deny") {
      out.line("");
      approvals.deny();
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
    out.line(idle || approvals.asking() ? "" : BUSY_STOP);
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
    expired: approvals.expired,
    waitsForOwnRuns: true,
    display: createConsoleDisplay(
      (text) => {
        out.line(`\n${text}\n`);
        if (idle && !approvals.asking()) prompt(PROMPT);
      },
      (pending) => approvals.slots.offer(pending),
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
      if (!stopped && !sessionOver) out.line(idle || approvals.asking() ? "\nStopping." : BUSY_STOP);
      stopped = true;
      lines.close();
      input?.close();
      endSession();
    },
    close: async () => {},
  };
}
