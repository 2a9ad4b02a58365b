// Console mode: the bot in a terminal, as a surface under the core like Slack and Discord. A typed
// question goes to the core's intake, a y/n at `approve? [y/N]` to its decision flow, Ctrl-C to its
// Stop, a /command to its commands; the runs show through the core's run view, rendered as a
// transcript (console-display.ts). The console holds its transport (console-session.ts: lines in,
// text out), the parsing of what is typed (console-commands.ts) and that rendering. A typed line's
// turn (console-turns.ts) keeps the transcript in order: the prompt comes back once what the core
// shows for the line has shown.
import type { Logger } from "../../logger.js";
import type { StepRecord, TaskOrigin, Tool } from "../../contracts/types.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import type { ChatSurface } from "../core/surface.js";
import { createConsoleApprovals } from "./console-approvals.js";
import { createConsoleForms } from "./console-forms.js";
import { createConsoleDisplay } from "./console-display.js";
import { consoleFiles, createFileDesk } from "./console-files.js";
import { consoleFormat, osUserName } from "./console-format.js";
import { createConsoleLines } from "./console-lines.js";
import { createConsoleOutput } from "./console-output.js";
import { ConsoleRefSchema, refOf, type ConsoleClicked, type ConsoleRef } from "./console-refs.js";
import type { ConsoleService } from "./console-service.js";
import { createConsoleSession } from "./console-session.js";
import { expiredText, type ModelDescription } from "./console-text.js";
import { createTurns } from "./console-turns.js";
import { createLineQueue } from "./line-queue.js";

export interface ConsoleAdapterOptions {
  readonly service: ConsoleService;
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

export interface ConsoleSurface extends ChatSurface<ConsoleClicked, ConsoleRef> {
  /** A line the operator must see (a rejected settings edit, a policy warning), shown after the banner. */
  notice(text: string): void;
  /** Resolves when the person is done: /quit, end of input (Ctrl-D), Ctrl-C, or the app stopping. */
  readonly closed: Promise<void>;
}

export const CONSOLE_CONVERSATION_KEY = "console:local";

export function createConsoleSurface(options: ConsoleAdapterOptions): ConsoleSurface {
  const output = options.output ?? process.stdout;
  const out = createConsoleOutput(output);
  const origin: TaskOrigin = {
    surface: "console",
    conversationKey: CONSOLE_CONVERSATION_KEY,
    requester: { id: "console", name: options.username ?? osUserName() },
    scope: { dm: false, roles: [] },
    place: {},
  };
  const here: Spot = { origin };
  let started!: (core: SurfaceCore<ConsoleClicked>) => void;
  const core = new Promise<SurfaceCore<ConsoleClicked>>((resolve) => (started = resolve));
  const lines = createLineQueue();
  const turns = createTurns();
  const files = createFileDesk(options);
  let lastRun: { readonly steps: readonly StepRecord[]; readonly files: readonly string[] } | undefined;

  const approvals = createConsoleApprovals({
    out,
    lines,
    here,
    decide: async (click) => (await core).decide(click),
    prompt: (text) => session.prompt(text),
    promptIfIdle: () => session.promptIfIdle(),
    free: () => session.idle(),
    stopped: () => session.stopped(),
  });
  const forms = createConsoleForms({
    out,
    lines,
    here,
    prompt: (text) => session.prompt(text),
    click: async (formId, action) => (await core).form({ at: here, clicked: {}, formId, action }),
    submit: async (submission) => void (await (await core).formSubmit(submission)),
  });
  const performer = createConsoleLines({
    core,
    service: options.service,
    model: options.model,
    out,
    files,
    turns,
    approvals,
    origin,
    lastRun: () => lastRun,
  });
  const session = createConsoleSession({
    out,
    lines,
    turns,
    approvals,
    performer,
    service: options.service,
    model: options.model,
    logger: options.logger,
    here,
    core,
    input: options.input ?? process.stdin,
    output,
  });

  /** Text from the core; one addressed to a turn's line (a refusal, "try again", a decision that can't go on now) ends that turn. */
  const print = async (at: Spot, text: string) => {
    out.line(text);
    turns.find(at.reply)?.reach({ kind: "ended" });
    return true;
  };

  return {
    name: "console",
    format: consoleFormat,
    linkStyle: "plain",
    askHint: "type a question at the prompt.",
    commandMark: "/",
    scheduleResultsWhere:
      "Its runs' answers are printed here, between your lines, while the console is open (a slot due while it is closed runs at the next start).",
    tools: options.tools ?? [],
    files: consoleFiles(),
    upgrade: (stored) => ({ origin: { ...stored, scope: stored.scope ?? origin.scope } }),
    refs: { keyPrefix: "console:approval", schema: ConsoleRefSchema },
    closed: session.closed,
    notice: (text) => session.notice(text),
    post: print,
    whisper: print,
    directMessage: (_person, text) => print(here, text),
    display: createConsoleDisplay({
      out,
      turns,
      files,
      between: (text) => session.between(text),
      offer: (pending) => approvals.slots.offer(pending),
      shown: (steps, files) => (lastRun = { steps, files }),
      forms,
    }),
    // A decision shows as the run goes on; an expiry is said here, and the core shows the run's summary below it.
    async settleApproval(message, card) {
      if (card.kind !== "expired") return;
      const pending = "ref" in message ? card.approval?.pending : message.clicked.approval;
      const ref = "ref" in message ? message.ref : pending && refOf(pending);
      const text = expiredText(pending?.tool);
      if (ref && approvals.expired(ref)) out.line(`\n${text}`);
      else session.between(text);
    },

    async start(flows) {
      started(flows);
      session.start();
    },
    async stopIntake() {
      session.stop();
    },
    close: async () => {},
  };
}
