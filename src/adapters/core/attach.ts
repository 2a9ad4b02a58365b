// attach(surface): the one registration of a surface with the runs (its tools, its presenter,
// its refusal note, its thread context, its expiries, its reading of old records), and the core's
// flows handed to its transport. What the flows start after an ack is tracked, so shutdown can
// let it finish: stop taking events → let that work and the runs finish and post → close the
// platform clients (the app closes the store last).
import type { PendingApproval, Surface } from "../../contracts/types.js";
import { priceTable, type PriceTable } from "../../cost/prices.js";
import type { Governance } from "../../governance/governance.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { AgentService } from "../../runs/api/agent-service.js";
import { pausedChannelNotice } from "../../schedules/schedule-text.js";
import { createApprovalRefs, forgetApprovalRef } from "./approval-refs.js";
import { badClick, comment, feedback, stop } from "./clicks.js";
import type { CoreContext } from "./core-context.js";
import { decide, showExpiry } from "./decisions.js";
import { formClick, formSubmit } from "./forms.js";
import { chooseHeld, heldHooks } from "./held-answers.js";
import { markBotThread } from "./bot-threads.js";
import { takeFollowUp } from "./follow-ups.js";
import { takeDeletion, takeEdit } from "./changes.js";
import { rememberViewing } from "./viewing.js";
import type { SurfaceCore } from "./inbound.js";
import { createInFlight } from "./in-flight.js";
import { answerCommand, takeMessage, takeQuestion, type AfterAck } from "./intake.js";
import { tellPrivately } from "./private-note.js";
import { createRunView } from "./run-view.js";
import type { CoreSchedules } from "./core-context.js";
import { displayFor } from "./slot-thread.js";
import type { ChatSurface } from "./surface.js";
import { connectInPublic, connectNote, REFUSED_IN_PUBLIC } from "./texts.js";
import { createUnfinishedMessages } from "./unfinished-messages.js";

const platformName = (surface: Surface) => surface.charAt(0).toUpperCase() + surface.slice(1);

export interface CoreDeps {
  readonly service: AgentService;
  readonly governance: Governance;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** The schedule commands and the slots' owners (src/schedules); without it the commands say schedules are off. */
  readonly schedules?: CoreSchedules;
  /** What `usage` prices tokens at; default: the built-in prices. */
  readonly prices?: PriceTable;
}

/** A surface under the core, as the app starts and stops it. */
export interface AttachedSurface {
  readonly name: Surface;
  /** Resolves once the surface is connected and taking events. */
  start(): Promise<void>;
  /** Stops taking events; clicks and commands already taken get up to `graceMs` to finish. Never rejects. */
  stopIntake(graceMs: number): Promise<void>;
  /** Closes the platform clients, once the runs are done posting. Never rejects. */
  close(): Promise<void>;
  /** Forgets where the runs' approval messages were posted (their workspace removed the bot). Rejects when the store fails. */
  forgetApprovalMessages(runs: ReadonlyArray<{ readonly runId: string; readonly approvalCalls: readonly string[] }>): Promise<void>;
}

export function attach<C, R>(surface: ChatSurface<C, R>, deps: CoreDeps): AttachedSurface {
  const logger = deps.logger.child({ surface: surface.name });
  const inFlight = createInFlight(logger);
  let accepting = false;
  const ctx: CoreContext<C, R> = {
    surface,
    service: deps.service,
    governance: deps.governance,
    store: deps.store,
    logger,
    clock: deps.clock ?? Date.now,
    refs: createApprovalRefs({ store: deps.store, logger, now: deps.clock ?? Date.now, ...surface.refs }),
    unfinished: createUnfinishedMessages(deps.store, logger, surface.name),
    accepting: () => accepting,
    ...(deps.schedules ? { schedules: deps.schedules } : {}),
    prices: deps.prices ?? priceTable(),
    tell: (at, text, publicFallback) => tellPrivately(surface, logger, at, { text }, publicFallback),
    answerFiles: (conversationKey) => {
      const files = surface.files;
      if (!files?.uploads) return undefined;
      const load = (fileId: string) => deps.service.answerFile(conversationKey, fileId);
      const limit = files.uploadLimitBytes === undefined ? {} : { limitBytes: files.uploadLimitBytes };
      return { source: { load, platform: platformName(surface.name), ...limit }, format: surface.format };
    },
  };
  const deciders = () => deps.governance.authority.deciders(surface.name);
  const { display } = surface;

  deps.service.attach(surface.name, {
    tools: surface.tools,
    ...(surface.loadContext ? { loadContext: surface.loadContext } : {}),
    ...(surface.files ? { files: surface.files } : {}),
    upgrade: surface.upgrade,
    ...(display
      ? {
          present(origin, question, reply) {
            const view = createRunView(
              displayFor({ store: deps.store, logger, surface }, { origin, question, ...(reply ? { reply } : {}) }),
              {
                logger,
                refs: ctx.refs,
                deciders: deciders(),
                question,
                files: ctx.answerFiles(origin.conversationKey),
                unfinished: ctx.unfinished,
                mayHold: (channels) => deps.service.heldAnswers.mayHold(origin, channels),
                // The console shows the link at its own prompt (console-approvals.ts); the chat platforms tell the requester alone.
                ...(surface.name === "console"
                  ? {}
                  : {
                      connect: (pending: PendingApproval) =>
                        tellPrivately(
                          surface,
                          logger,
                          { origin, ...(reply ? { reply } : {}) },
                          connectNote(pending),
                          connectInPublic(pending),
                        ),
                    }),
              },
            );
            view.begin();
            inFlight.track("marking the bot's thread", markBotThread(deps.store, logger, origin));
            return view;
          },
          refuse(origin, text, reply) {
            logger.info({ user: origin.requester.id, conversationKey: origin.conversationKey }, "request refused by the settings");
            return ctx.tell({ origin, ...(reply ? { reply } : {}) }, text, REFUSED_IN_PUBLIC);
          },
        }
      : {}),
    expired: (pending, outcome) => inFlight.track("showing an expired approval", showExpiry(ctx, pending, outcome)),
    tell: (origin, text, link) => tellPrivately(surface, logger, { origin }, { text, ...(link ? { link } : {}) }),
    ...heldHooks(surface, logger),
  });

  deps.schedules?.attachSurface(surface.name, {
    ...(surface.timeZoneOf ? { timeZoneOf: (person, origin) => surface.timeZoneOf!(person, origin) } : {}),
    ...(surface.presenceOf ? { presence: (schedule) => surface.presenceOf!(schedule.owner, schedule.origin) } : {}),
    async notifyOwner(schedule, text) {
      if (await surface.directMessage(schedule.owner, surface.format.plain(text), schedule.origin)) return;
      // Nobody would learn why the schedule went quiet: the channel it posts in is told instead.
      logger.warn({ scheduleId: schedule.id, owner: schedule.owner.id }, "could not tell a schedule's owner privately");
      if (!(await surface.post({ origin: schedule.origin }, surface.format.plain(pausedChannelNotice(schedule)))))
        logger.warn({ scheduleId: schedule.id }, "could not tell a paused schedule's channel either");
    },
  });

  /** Work after the ack, tracked for shutdown. */
  const track = <T>(what: string, work: Promise<T>): Promise<T> => {
    inFlight.track(what, work);
    return work;
  };
  /**
   * Resolves once the message is taken (the ack waits for it); the taking and what follows it are tracked for shutdown.
   * Rejects when it was not taken and the platform is not to be acknowledged (core/intake.ts): nothing follows then.
   */
  const afterAck = (what: string, taken: Promise<AfterAck | undefined>): Promise<void> => {
    inFlight.track(
      what,
      taken.then(
        (rest) => rest?.(),
        () => undefined,
      ),
    );
    return taken.then(() => undefined);
  };
  const core: SurfaceCore<C> = {
    message: (input) => afterAck("a message", takeMessage(ctx, input)),
    followUp: (input) => afterAck("a reply in a thread", takeFollowUp(ctx, input)),
    edit: (input) => afterAck("an edit", takeEdit(ctx, input)),
    deletion: (input) => afterAck("a deletion", takeDeletion(ctx, input)),
    viewing: (input) => track("what a person views", rememberViewing(ctx, input)),
    question: (input) => afterAck("a question", takeQuestion(ctx, input)),
    command: (input) => track("a command", answerCommand(ctx, input)),
    decide: (click) => track("an approval click", decide(ctx, click)),
    stop: (click) => track("a Stop click", stop(ctx, click)),
    feedback: (click) => track("a feedback click", feedback(ctx, click)),
    held: (click) => track("a choice on a held answer", chooseHeld(ctx, click)),
    comment: (runId, person, text) => track("a feedback comment", comment(ctx, runId, person, text)),
    badClick: (at) => track("an unknown click", badClick(ctx, at)),
    form: (click) => track("a form's button", formClick(ctx, click)),
    formSubmit: (submission) => track("a form's answer", formSubmit(ctx, submission)),
    track: (what, work) => inFlight.track(what, work),
  };

  return {
    name: surface.name,
    async start() {
      accepting = true;
      await surface.start(core);
    },
    async stopIntake(graceMs) {
      accepting = false;
      await surface.stopIntake();
      if (!(await inFlight.drain(graceMs))) logger.warn({ inFlight: inFlight.size }, "stopped while clicks or commands were still running");
    },
    close: () => surface.close(),
    async forgetApprovalMessages(runs) {
      for (const { runId, approvalCalls } of runs)
        for (const callId of approvalCalls) await forgetApprovalRef(deps.store, surface.refs.keyPrefix, runId, callId);
    },
  };
}
