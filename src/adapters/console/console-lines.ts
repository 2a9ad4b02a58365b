// What one line typed at the console's prompt does once parsed: a question (also with a file, or
// the demo of a looping model) runs and shows its outcome, asking at the prompt for each write;
// the console's own commands (/trace, /help, /new) answer here; the core's go to the core.
import { renderTrace } from "../../contracts/trace-text.js";
import type { EventSink, RunOutcome, StepRecord, TaskOrigin } from "../../contracts/types.js";
import type { AgentService } from "../../runs/api/agent-service.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { ConsoleApprovals } from "./console-approvals.js";
import type { ConsoleCommand } from "./console-commands.js";
import type { FileDesk } from "./console-files.js";
import type { ConsoleOutput } from "./console-output.js";
import { answerText, helpText, startOverText } from "./console-text.js";
import { DEMO_LOOP_QUESTION, type DemoLoopRunner } from "./demo-loop.js";

const DEMO_LOOP_CONVERSATION_KEY = "console:demo-loop";
const TRACE_CHARS = 20_000;

export type ConsoleLine = Exclude<ConsoleCommand, { kind: "quit" | "empty" }>;

export interface ConsoleLinesDeps {
  readonly service: AgentService;
  readonly runDemoLoop: DemoLoopRunner;
  readonly out: ConsoleOutput;
  readonly files: FileDesk;
  readonly approvals: ConsoleApprovals;
  readonly origin: TaskOrigin;
  readonly sink: EventSink;
  /** The core, once the surface started. */
  core(): SurfaceCore<unknown> | undefined;
}

export interface ConsoleLines {
  perform(line: ConsoleLine): Promise<void>;
  /** Shows the outcome; a pause asks for approval and goes on with the run until it answers. */
  show(outcome: RunOutcome): Promise<void>;
  /** The steps of the latest run shown or ended, for `/trace`. */
  noteSteps(steps: readonly StepRecord[]): void;
}

export function createConsoleLines(deps: ConsoleLinesDeps): ConsoleLines {
  const { service, out, files, approvals, origin, sink } = deps;
  let lastSteps: readonly StepRecord[] | undefined;

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
      outcome = await approvals.ask(outcome.pending);
    }
  }

  async function perform(command: ConsoleLine): Promise<void> {
    switch (command.kind) {
      case "ask":
        return show(await service.ask({ origin, text: command.text }, sink));
      case "demo_loop": {
        const text = command.question ?? DEMO_LOOP_QUESTION;
        out.line(`Demo: a model that keeps making the same call, asked "${text}".`);
        return show(await deps.runDemoLoop({ origin: { ...origin, conversationKey: DEMO_LOOP_CONVERSATION_KEY }, text }, sink));
      }
      case "attach": {
        const attached = await files.attach(command.path);
        if (attached.kind === "refused") return out.line(attached.message);
        return show(await service.ask({ origin, text: command.question, files: [attached.file] }, sink));
      }
      case "trace":
        return out.line(lastSteps ? renderTrace(lastSteps, { maxChars: TRACE_CHARS }) : "No run yet.");
      case "command":
        return deps.core()?.command({ at: { origin }, name: command.name, text: command.text });
      case "help":
        return out.line(helpText());
      case "new":
        return out.line(startOverText(await service.memory.startOver(origin.conversationKey)));
      case "bad_command":
        return out.line(command.message);
    }
  }

  return { perform, show, noteSteps: (steps) => (lastSteps = steps) };
}
