// What one line typed at the console's prompt does once parsed. A question (also about a file, or
// the demo of a looping model) goes to the core's intake like a chat message, and its turn is
// followed to the end: its transcript, each approval its run waits for asked at the prompt, its
// answer. The core's commands go to the core; the console's own (/trace, /help, /new) answer here.
import { randomUUID } from "node:crypto";
import { LOOP_REQUEST, WRITE_REQUEST } from "../../agent/models/model-demo.js";
import { renderTrace } from "../../contracts/trace-text.js";
import type { StepRecord, TaskOrigin } from "../../contracts/types.js";
import type { FileDescriptor } from "../../files/file-ref.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { ConsoleApprovals } from "./console-approvals.js";
import type { ConsoleCommand } from "./console-commands.js";
import type { FileDesk } from "./console-files.js";
import type { ConsoleOutput } from "./console-output.js";
import type { ConsoleClicked } from "./console-refs.js";
import type { ConsoleService } from "./console-service.js";
import { demoLoopText, demoWriteText, helpText, startOverText, type ModelDescription } from "./console-text.js";
import type { Turn, Turns } from "./console-turns.js";

/** What `/demo loop` asks when no question follows it. */
const DEMO_LOOP_QUESTION = "What time is it in UTC?";
/** The demo's runs have a conversation of their own: the person's earlier turns stay out of them, and they out of the person's. */
const DEMO_LOOP_CONVERSATION_KEY = "console:demo-loop";
const TRACE_CHARS = 20_000;

export type ConsoleLine = Exclude<ConsoleCommand, { kind: "quit" | "empty" }>;

export interface ConsoleLinesDeps {
  /** The core's flows, once the surface started. */
  readonly core: Promise<SurfaceCore<ConsoleClicked>>;
  readonly service: ConsoleService;
  readonly model: ModelDescription;
  readonly out: ConsoleOutput;
  readonly files: FileDesk;
  readonly turns: Turns;
  readonly approvals: ConsoleApprovals;
  /** The console's conversation, its person the requester. */
  readonly origin: TaskOrigin;
  /** The steps of the latest run a turn showed, and its attached files' lines, for `/trace`. */
  lastRun(): { readonly steps: readonly StepRecord[]; readonly files: readonly string[] } | undefined;
}

export interface ConsoleLines {
  perform(line: ConsoleLine): Promise<void>;
  /** Follows a turn to its end, asking at the prompt for each approval its run waits for; resolves early when the session stops at a question. */
  follow(turn: Turn): Promise<void>;
}

export function createConsoleLines(deps: ConsoleLinesDeps): ConsoleLines {
  const { out, origin } = deps;

  async function follow(turn: Turn): Promise<void> {
    for (let step = await turn.next(); step.kind === "approval"; step = await turn.next()) {
      const asked = await deps.approvals.ask(step.pending, { origin, reply: turn.reply });
      // Waiting for a connection: the turn is over; the run shows between the person's lines once it goes on.
      if (step.pending.connect) return turn.reach({ kind: "ended" });
      if (asked === "left") return;
    }
  }

  /** A question to the core, as a chat message with an id of its own; its turn ends with what the core shows for it. */
  async function ask(at: TaskOrigin, text: string, files: readonly FileDescriptor[] = []): Promise<void> {
    const turn = deps.turns.open();
    const core = await deps.core;
    await core.question({ at: { origin: at, reply: turn.reply }, text, receipt: randomUUID(), ...(files.length > 0 ? { files } : {}) });
    await follow(turn);
  }

  async function perform(command: ConsoleLine): Promise<void> {
    switch (command.kind) {
      case "ask":
        return ask(origin, command.text);
      case "demo_loop": {
        if (deps.model.kind !== "demo") return out.line(demoLoopText(deps.model));
        const question = command.question ?? DEMO_LOOP_QUESTION;
        out.line(`Demo: a model that keeps making the same call, asked "${question}".`);
        return ask({ ...origin, conversationKey: DEMO_LOOP_CONVERSATION_KEY }, `${LOOP_REQUEST} ${question}`);
      }
      case "demo_write":
        if (deps.model.kind !== "demo") return out.line(demoWriteText(deps.model));
        return ask(origin, command.note === undefined ? WRITE_REQUEST : `${WRITE_REQUEST} ${command.note}`);
      case "attach": {
        const attached = await deps.files.attach(command.path);
        if (attached.kind === "refused") return out.line(attached.message);
        return ask(origin, command.question, [attached.file]);
      }
      case "trace": {
        const run = deps.lastRun();
        if (!run) return out.line("No run yet.");
        // Every attached file is named, read or not and why (docs/files.md), above the steps.
        const files = run.files.length > 0 ? `Files:\n${run.files.map((line) => `  ${line}`).join("\n")}\n` : "";
        return out.line(`${files}${renderTrace(run.steps, { maxChars: TRACE_CHARS })}`);
      }
      case "command":
        return (await deps.core).command({ at: { origin }, name: command.name, text: command.text });
      case "help":
        return out.line(helpText(deps.model));
      case "new":
        return out.line(startOverText(await deps.service.memory.startOver(origin.conversationKey)));
      case "bad_command":
        return out.line(command.message);
    }
  }

  return { perform, follow };
}
