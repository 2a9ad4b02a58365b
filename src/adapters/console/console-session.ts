// The console's session: the banner, what the last session left (how many turns the conversation
// holds, approvals still undecided), then one typed line after another, each performed to its end
// before the prompt comes back (a line typed meanwhile waits its turn). Like a chat box: a paste is
// one message (paste-input.ts), and Ctrl-C stops the smallest thing going on (ctrl-c.ts): its Stop
// is the core's, as a click on Slack's Stop button is. Operator notices and runs no turn waits for
// print between the person's lines.
import type { Logger } from "../../logger.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import type { ConsoleApprovals } from "./console-approvals.js";
import { parseCommand } from "./console-commands.js";
import { openConsoleInput, type ConsoleInput } from "./console-input.js";
import type { ConsoleLines } from "./console-lines.js";
import type { ConsoleOutput } from "./console-output.js";
import type { ConsoleClicked } from "./console-refs.js";
import type { ConsoleService } from "./console-service.js";
import { bannerText, continuingText, echoText, noticeText, type ModelDescription } from "./console-text.js";
import type { Turns } from "./console-turns.js";
import { ctrlC } from "./ctrl-c.js";
import type { LineQueue } from "./line-queue.js";

export const PROMPT = "> ";
/** The run in flight gets the runner's drain time (app.ts) before the process exits. */
const BUSY_STOP = "Stopping: the run in progress gets a few seconds to reach a safe point.";
const RUN_STOP = "\n(Stopping this run; Ctrl-C again leaves.)";

export interface ConsoleSessionDeps {
  readonly out: ConsoleOutput;
  readonly lines: LineQueue;
  readonly turns: Turns;
  readonly approvals: ConsoleApprovals;
  readonly performer: ConsoleLines;
  readonly service: ConsoleService;
  readonly model: ModelDescription;
  readonly logger: Logger;
  /** The console's conversation, as its person acts in it. */
  readonly here: Spot;
  /** The core's flows, once the surface started. */
  readonly core: Promise<SurfaceCore<ConsoleClicked>>;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

export interface ConsoleSession {
  /** Resolves when the person is done: /quit, end of input (Ctrl-D), Ctrl-C, or stop(). */
  readonly closed: Promise<void>;
  /** Opens the input and runs the session, the banner first. */
  start(): void;
  /** The app stops: the session ends at once; a run in progress still shows its answer. */
  stop(): void;
  /** A line the operator must see, shown after the banner. */
  notice(text: string): void;
  /** A block of lines between the person's own; the prompt comes back under it when the session waits at it. */
  between(text: string): void;
  /** Draws a prompt: on a terminal readline draws it (and redraws it while editing); elsewhere it is plain text. */
  prompt(text: string): void;
  /** Shows the main prompt again when the session waits at it. */
  promptIfIdle(): void;
  /** The session waits at its main prompt. */
  idle(): boolean;
  stopped(): boolean;
}

export function createConsoleSession(deps: ConsoleSessionDeps): ConsoleSession {
  const { out, lines, turns, approvals, performer, here, logger } = deps;
  const conversationKey = here.origin.conversationKey;
  let input: ConsoleInput | undefined;
  let idle = false;
  let stopped = false;
  /** Ctrl-C: the person left, rather than the process being stopped. */
  let interrupted = false;
  let sessionOver = false;
  /** Notices that came before the banner was shown; undefined once it was. */
  let early: string[] | undefined = [];
  let endSession!: () => void;
  const closed = new Promise<void>((resolve) => (endSession = resolve));

  const prompt = (text: string) => {
    if (!out.isTerminal) return out.write(text);
    input?.prompt(text);
  };

  /** What the last session left: how many turns the conversation holds, and approvals still undecided. */
  async function resumeConversation(): Promise<void> {
    const earlier = await deps.service.memory.earlierTurns(conversationKey);
    if (earlier > 0) out.line(continuingText(earlier));
    for (const pending of await deps.service.waitingApprovals(conversationKey)) {
      if (stopped) break;
      out.line("A write asked for before the last stop is still waiting for your decision:");
      const turn = turns.open(pending.runId);
      if ((await approvals.ask(pending, { origin: here.origin, reply: turn.reply })) !== "left") await performer.follow(turn);
      out.line("");
    }
  }

  async function session(): Promise<void> {
    out.line(bannerText(deps.model, out.width()));
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
        await performer.perform(command);
      } catch (error) {
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
    const turn = turns.current();
    const runId = turn?.stoppable();
    const action = ctrlC({ typed: input.typed(), approving: approvals.asking(), stoppable: runId !== undefined });
    if (action === "clear_line") {
      input.clearLine();
      return;
    }
    if (action === "deny") {
      out.line("");
      approvals.deny();
      return;
    }
    if (action === "stop_run" && turn && runId) {
      turn.stopping();
      out.line(RUN_STOP);
      void deps.core.then((core) => core.stop({ at: here, clicked: {}, runId }));
      return;
    }
    stopped = interrupted = true;
    out.line(idle || approvals.asking() ? "" : BUSY_STOP);
    lines.close();
    input?.close();
    endSession();
  }

  return {
    closed,
    start() {
      input = openConsoleInput({
        source: deps.input,
        output: deps.output,
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
    stop() {
      if (!stopped && !sessionOver) out.line(idle || approvals.asking() ? "\nStopping." : BUSY_STOP);
      stopped = true;
      lines.close();
      input?.close();
      endSession();
    },
    notice(text) {
      if (early) return void early.push(text);
      // At the prompt the notice takes the prompt's line, and the prompt comes back under it.
      if (idle) out.write(out.isTerminal ? "\r\u001b[2K" : "\n");
      out.line(noticeText(text));
      if (idle) prompt(PROMPT);
    },
    between(text) {
      out.line(`\n${text}\n`);
      if (idle && !approvals.asking()) prompt(PROMPT);
    },
    prompt,
    promptIfIdle: () => void (idle && prompt(PROMPT)),
    idle: () => idle,
    stopped: () => stopped,
  };
}
