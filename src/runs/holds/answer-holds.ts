// The I/O edge of the cross-channel rule: before an answer is posted where it was asked, the
// channels it quotes are looked up on the platform (who can see them, who can see the
// destination), hold-decision.ts decides, and a held answer is sent privately (`private`) or kept
// and its requester asked (`ask`); in its place the conversation gets a note saying so. Each hold
// and each choice is audited (answer_held). The console has one person and no channel: nothing is
// held there.
import { quotedReads } from "../../agent/context/quoted-reads.js";
import type { RunState } from "../../agent/loop/run-state.js";
import type { Person, RunOutcome, Surface, TaskOrigin } from "../../contracts/types.js";
import type { AuditDraft } from "../../governance/audit-log.js";
import type { Logger } from "../../logger.js";
import type { AudienceReader } from "../api/audiences.js";
import type { PrivateDelivery } from "../api/surface-hooks.js";
import type { HeldAnswer, HeldAnswers, HeldChoice } from "./held-answers.js";
import { type CrossChannelReads, holdDecision } from "./hold-decision.js";

type Answered = Extract<RunOutcome, { status: "answered" }>;

export interface AnswerHolds {
  readonly mode: CrossChannelReads;
  /** The surface's reader of who can see a place; none for a surface without channels (the console). */
  audiences(surface: Surface): AudienceReader | undefined;
  readonly held: HeldAnswers;
  /** Shows the requester alone the preview of the held run `runId` with the post / private / drop buttons. False when it could not; never throws. */
  offer(origin: TaskOrigin, preview: string, runId: string): Promise<boolean>;
  /** Sends `text` to the requester alone: how it went, undefined when it could not. Never throws. */
  tell(origin: TaskOrigin, text: string): Promise<PrivateDelivery | undefined>;
  /** Posts where the run was asked (a held answer the requester chose to post). False when it could not; never throws. */
  post(origin: TaskOrigin, text: string): Promise<boolean>;
  audit(draft: AuditDraft): Promise<unknown>;
  readonly logger: Logger;
  readonly clock: () => number;
}

const placesText = (places: readonly string[]) => places.map((place) => `<#${place}>`).join(", ");

function auditHeld(holds: AnswerHolds, origin: TaskOrigin, runId: string, places: readonly string[], outcome: string, by?: Person) {
  return holds
    .audit({
      kind: "answer_held",
      runId,
      conversationKey: origin.conversationKey,
      surface: origin.surface,
      place: origin.place,
      requester: origin.requester,
      reason: `quotes ${places.join(", ")}`,
      outcome,
      ...(by ? { decidedBy: by } : {}),
    })
    .catch((error: unknown) => holds.logger.warn({ err: error, runId }, "could not audit a held answer"));
}

/** Where an answer asked at `origin` is posted, with who can see places there; none where nothing is held (`allow`, the console). */
function holdingAt(holds: AnswerHolds, origin: TaskOrigin): { audiences: AudienceReader; destination: string } | undefined {
  if (holds.mode === "allow") return undefined;
  const audiences = holds.audiences(origin.surface);
  const destination = audiences?.destinationOf(origin);
  return audiences && destination !== undefined ? { audiences, destination } : undefined;
}

/** Whether an answer after reads of `channels` may be held: it quotes nothing else, so a read of where it is posted alone can't hold it. */
export function mayHold(holds: AnswerHolds, origin: TaskOrigin, channels: readonly string[]): boolean {
  const at = holdingAt(holds, origin);
  return at !== undefined && channels.some((channel) => channel !== at.destination);
}

/** The outcome to post where the run was asked: the answer itself, or the note standing for it when held. */
export async function holdIfQuoting(holds: AnswerHolds, outcome: RunOutcome, state: RunState): Promise<RunOutcome> {
  if (outcome.status !== "answered" || outcome.stop?.guard === "question_deleted") return outcome;
  const { origin } = state;
  const at = holdingAt(holds, origin);
  if (!at) return outcome;
  const { audiences, destination } = at;
  const quoted = quotedReads(outcome.answer, state.steps).filter((channel) => channel !== destination);
  if (quoted.length === 0) return outcome;
  const [here, ...places] = await Promise.all([destination, ...quoted].map((channel) => audiences.audienceOf(origin, channel)));
  const decision = holdDecision(
    holds.mode,
    here!,
    quoted.map((channel, index) => ({ channel, audience: places[index]! })),
  );
  if (decision.kind === "post") return outcome;
  return decision.action === "private"
    ? sentPrivately(holds, outcome, origin, decision.places)
    : asked(holds, outcome, origin, decision.places);
}

async function sentPrivately(holds: AnswerHolds, outcome: Answered, origin: TaskOrigin, places: readonly string[]): Promise<Answered> {
  const told =
    (await holds.tell(origin, `Your answer, sent to you alone because it quotes ${placesText(places)}:\n\n${outcome.answer}`)) !==
    undefined;
  await auditHeld(holds, origin, outcome.runId, places, told ? "sent privately" : "not delivered");
  const note = told
    ? `I sent my answer to <@${origin.requester.id}> privately: it quotes ${placesText(places)}, which not everyone here can see.`
    : `My answer quotes ${placesText(places)}, which not everyone here can see, and I could not send it to <@${origin.requester.id}> privately, so it was not posted.`;
  return standingIn(outcome, note, places, "private");
}

async function asked(holds: AnswerHolds, outcome: Answered, origin: TaskOrigin, places: readonly string[]): Promise<Answered> {
  const { runId } = outcome;
  const kept = await holds.held
    .keep({ runId, origin, answer: outcome.answer, places, heldAt: holds.clock() })
    .then(() => true)
    .catch((error: unknown) => {
      holds.logger.error({ err: error, runId }, "could not keep a held answer");
      return false;
    });
  const preview = `My answer quotes ${placesText(places)}, which not everyone where you asked can see. Post it there, get it here only, or drop it?\n\n${outcome.answer}`;
  const told = kept && (await holds.offer(origin, preview, runId));
  await auditHeld(holds, origin, runId, places, told ? "asked" : "not delivered");
  const note = told
    ? `My answer quotes ${placesText(places)}, which not everyone here can see; I asked <@${origin.requester.id}> privately whether to post it here.`
    : `My answer quotes ${placesText(places)}, which not everyone here can see, and I could not ask <@${origin.requester.id}> privately, so it was not posted.`;
  return standingIn(outcome, note, places, "ask");
}

/** The note in the answer's place, in its trace's last step too (the trace is shown where the answer would have been). */
function standingIn(outcome: Answered, note: string, places: readonly string[], action: "ask" | "private"): Answered {
  const steps = outcome.steps.map((step) => (step.calls.length === 0 && step.text !== undefined ? { ...step, text: note } : step));
  return { ...outcome, answer: note, steps, held: { places, action } };
}

/** A requester's choice for their held answer; returns what to tell the person who clicked. Never throws. */
export async function chooseHeld(holds: AnswerHolds, runId: string, choice: HeldChoice, by: Person): Promise<string> {
  const held = await holds.held.take(runId).catch((error: unknown) => {
    holds.logger.warn({ err: error, runId }, "could not take a held answer");
    return undefined;
  });
  if (!held) return "That answer is no longer held (it was already chosen for, or it expired).";
  if (held.origin.requester.id !== by.id) {
    // Not theirs to choose: put it back for its requester.
    await holds.held.keep(held).catch(() => undefined);
    return "Only the person who asked can choose what happens to this answer.";
  }
  const done = await carryOut(holds, held, choice);
  await auditHeld(holds, held.origin, runId, held.places, done ? choice : `${choice} failed`, by);
  if (!done) await holds.held.keep(held).catch(() => undefined);
  return done ?? "That did not work; the answer is still held, try again.";
}

/** What a requester is told of their answer sent to them alone, as it went. */
const sentText: Readonly<Record<PrivateDelivery, string>> = {
  "direct message": "Sent to you by direct message.",
  "here, to them alone": "Sent to you where you asked, shown to you alone.",
};

/** Does what the requester chose; what to tell them, undefined when it could not be done. */
async function carryOut(holds: AnswerHolds, held: HeldAnswer, choice: HeldChoice): Promise<string | undefined> {
  if (choice === "drop") return "Dropped: it was not posted.";
  if (choice === "post") return (await holds.post(held.origin, held.answer)) ? "Posted." : undefined;
  const sent = await holds.tell(held.origin, held.answer);
  return sent && sentText[sent];
}
