// The soak's verdict, from what was sent, what the people saw, what was written and what the
// store still holds: each check a name and the list of what broke it (empty: it held), each
// item naming the message (m<n>), its conversation, channel and thread. Pure.
import { UNKNOWN_OUTCOME } from "../src/runs/worker/write-ledger.js";
import type { Death } from "./fleet.js";
import { STORAGE_TROUBLE, type Observed, type Post } from "./observer.js";
import type { SentMessage } from "./traffic.js";
import { editIntakeIdOf, groupRoots, intakeIdOf, takenUp, type Outcome, type SentEdit } from "./taken-up.js";

export interface StoredLeftovers {
  /** Intake records not done, with the message they hold. */
  readonly unfinishedIntake: ReadonlyArray<{ readonly id: string; readonly state: string; readonly text: string }>;
  /** Runs still paused for an approval. */
  readonly pendingApprovals: ReadonlyArray<{ readonly runId: string; readonly text: string }>;
}

export interface SoakRecord {
  readonly messages: readonly SentMessage[];
  readonly observed: Omit<Observed, "poll">;
  /** Policy-allowed writes (the ledger's `record`) by idempotency key. */
  readonly ledgerWrites: ReadonlyMap<string, number>;
  readonly leftovers: StoredLeftovers;
  readonly deaths: readonly Death[];
  /** Answers the bots logged instead of posting, by message number. */
  readonly loggedAnswers: ReadonlyMap<number, readonly string[]>;
  /** The hostile file each such message carried, and what its run must say of it. */
  readonly hostileFiles: readonly HostileSent[];
  /** Every model request's messages, as JSON. */
  readonly modelRequests: readonly string[];
  /** Messages the fake Slack still holds as streaming at the end: never stopped, nor taken over by an update. */
  readonly leftStreaming: ReadonlyArray<{ readonly channel: string; readonly threadTs: string | undefined; readonly text: string }>;
  /** What became of each intake record, by intake id (taken-up.ts). */
  readonly outcomes: ReadonlyMap<string, Outcome>;
  /** The edits sent. */
  readonly edits: readonly SentEdit[];
}

export interface HostileSent {
  readonly n: number;
  readonly name: string;
  /** Any of these in the run's request: the reader's verdict (or, after a kill mid-read, that it was not read again). */
  readonly expected: readonly string[];
}

export type CheckName =
  | "answeredOnce"
  | "inOrder"
  | "writesAtMostOnce"
  | "approvedExactlyOnce"
  | "noRunStuck"
  | "noApprovalAppliedTwice"
  | "noUnexpectedDeath"
  | "noRunWithoutTools"
  | "noRunFailed"
  | "hostileFilesRead"
  | "noMessageLeftStreaming"
  | "addedReachedARun"
  | "noAnswerForDeletedQuestion";

export interface CheckResult {
  readonly name: CheckName;
  readonly says: string;
  readonly failures: readonly string[];
}

const TAG = /soak m(\d+)\b/g;

/** The newest message a stored text names (history and context name only earlier ones). */
export function tagOf(text: string): string {
  const numbers = [...text.matchAll(TAG)].map((match) => Number(match[1]));
  return numbers.length === 0 ? "no soak message" : `m${Math.max(...numbers)}`;
}

export const describeMessage = (message: SentMessage): string =>
  `m${message.n} (conversation ${message.conversation} #${message.index + 1}, ${message.channel} thread ${message.threadTs}, plan ${message.plan.kind})`;

/** Apologies and storage-trouble replies in a thread, handed to its unanswered messages in order; the rest are extra replies. */
function repliesByMessage(record: SoakRecord): { replies: Map<number, Post[]>; extra: string[] } {
  const { observed } = record;
  const replies = new Map<number, Post[]>();
  for (const message of record.messages) replies.set(message.n, [...(observed.answers.get(message.n) ?? [])]);
  const extra: string[] = [];
  const threads = new Map<string, SentMessage[]>();
  for (const message of record.messages) threads.set(message.threadTs, [...(threads.get(message.threadTs) ?? []), message]);
  for (const [threadTs, inThread] of threads) {
    const others = [...(observed.apologies.get(threadTs) ?? []), ...(observed.storageTrouble.get(threadTs) ?? [])].sort(
      (a, b) => a.seq - b.seq,
    );
    for (const post of others) {
      // The latest message sent before this reply that has no reply yet.
      const owner = inThread.filter((message) => message.sentSeq <= post.seq && replies.get(message.n)!.length === 0).at(-1);
      if (owner) replies.get(owner.n)!.push(post);
      else extra.push(`thread ${threadTs}: a reply no message lacked (call #${post.seq}): "${post.text.slice(0, 80)}"`);
    }
  }
  return { replies, extra };
}

/** Acknowledged messages whose answer is still due: none of their run's group has one yet. */
export function awaitingAnswers(
  messages: readonly SentMessage[],
  observed: Pick<Observed, "answers">,
  outcomes: ReadonlyMap<string, Outcome>,
): number {
  const roots = groupRoots(messages, outcomes);
  const answered = new Set(
    messages.filter((message) => (observed.answers.get(message.n)?.length ?? 0) > 0).map((message) => roots.get(message.n)),
  );
  return messages.filter((message) => {
    const outcome = outcomes.get(intakeIdOf(message));
    if (message.ackedAt === undefined || takenUp(outcome) || outcome?.result === "deleted") return false;
    return !answered.has(message.n);
  }).length;
}

export function runChecks(record: SoakRecord): CheckResult[] {
  const { messages, observed } = record;
  const { replies, extra } = repliesByMessage(record);
  const acked = messages.filter((message) => message.ackedAt !== undefined);
  const outcomeOf = (message: SentMessage) => record.outcomes.get(intakeIdOf(message));
  const roots = groupRoots(messages, record.outcomes);
  /** A run's answers: those naming the message it began with, or one it took up (its newest message names it). */
  const answersOf = (root: number) =>
    messages.filter((message) => roots.get(message.n) === root).flatMap((message) => replies.get(message.n)!);
  /** Answered within another message's run, or deleted: no answer of its own is due. */
  const ownAnswerDue = (message: SentMessage) => !takenUp(outcomeOf(message)) && outcomeOf(message)?.result !== "deleted";
  /**
   * Edits of message `n` that ran as questions of their own: recorded when its run could no longer take them (after its
   * last model call began, or a delivery the store turned away until then), each answers the edited question too.
   */
  const editsAnsweredOnTheirOwn = (n: number) =>
    record.edits.filter((edit) => edit.n === n && record.outcomes.get(editIntakeIdOf(edit))?.result === "answered").length;

  const answeredOnce = [
    ...acked.filter(ownAnswerDue).flatMap((message) => {
      const count = answersOf(message.n).length;
      const due = 1 + editsAnsweredOnTheirOwn(message.n);
      if (count === due) return [];
      if (count === 0) {
        const logged = record.loggedAnswers.get(message.n);
        const where = logged ? `; its answer is only in a log (${logged.join("; ")})` : "";
        return [
          `${describeMessage(message)}: acknowledged at ${message.ackedAt} s after ${message.deliveries} deliveries, never answered${where}`,
        ];
      }
      const posts = answersOf(message.n).map((post) => `"${post.text.slice(0, 60)}" (call #${post.seq})`);
      const edits = due > 1 ? ` (${due} due: ${due - 1} of its edits ran on their own)` : "";
      return [`${describeMessage(message)}: answered ${count} times${edits}: ${posts.join(", ")}`];
    }),
    ...messages
      .filter((message) => message.ackedAt === undefined && replies.get(message.n)!.length > 1)
      .map((message) => `${describeMessage(message)}: never acknowledged, answered ${replies.get(message.n)!.length} times`),
    ...extra,
  ];

  const inOrder: string[] = [];
  const byConversation = new Map<number, SentMessage[]>();
  for (const message of messages) byConversation.set(message.conversation, [...(byConversation.get(message.conversation) ?? []), message]);
  for (const conversation of byConversation.values()) {
    const sorted = [...conversation].sort((a, b) => a.index - b.index);
    for (let i = 1; i < sorted.length; i++) {
      const [before, after] = [sorted[i - 1]!, sorted[i]!];
      // Only run answers keep an order: a storage-trouble reply comes at the ack, before any run.
      const first = (message: SentMessage) => observed.answers.get(message.n)?.[0]?.seq;
      const [a, b] = [first(before), first(after)];
      if (after.afterPreviousAck && a !== undefined && b !== undefined && b < a)
        inOrder.push(`${describeMessage(after)} was answered before m${before.n}, which was acknowledged before it was sent`);
    }
  }

  const applied = (n: number) =>
    (observed.writes.get(n) ?? []).filter((attempt) => attempt.status === 200 && attempt.error === undefined).length;
  const writesAtMostOnce = [
    ...[...observed.writes.keys()].filter((n) => applied(n) > 1).map((n) => `approved write m${n}: posted ${applied(n)} times`),
    ...[...record.ledgerWrites].filter(([, count]) => count > 1).map(([key, count]) => `allowed write ${key}: recorded ${count} times`),
  ];

  const approvedExactlyOnce = acked
    .filter((message) => message.plan.kind === "approved")
    .flatMap((message) => {
      const attempts = observed.writes.get(message.n) ?? [];
      // Not recorded (told so at the ack), or run without the tool: no card is due.
      const noCardDue = replies.get(message.n)!.some((post) => post.text.includes("missing-tools") || post.text.includes(STORAGE_TROUBLE));
      if (message.approveClicks === 0)
        return (observed.cards.get(message.n)?.length ?? 0) === 0 && !noCardDue
          ? [`${describeMessage(message)}: no approval card was posted`]
          : [];
      if (applied(message.n) === 1) return [];
      if (applied(message.n) === 0 && attempts.length > 0) return []; // Slack refused it (429/500): not applied, and the model was told.
      // A kill -9 between the ledger's "executing" and Slack's answer: nobody can know whether the write happened (a post
      // has no idempotency key), so it is not tried again (at most once) and the answer says the outcome is unknown.
      if (applied(message.n) === 0 && replies.get(message.n)!.some((post) => post.text.includes(UNKNOWN_OUTCOME.slice(0, 60)))) return [];
      const said = replies
        .get(message.n)!
        .map((post) => `; answered "${post.text.slice(0, 140)}"`)
        .join("");
      return [`${describeMessage(message)}: approved (${message.approveClicks} clicks), written ${applied(message.n)} times${said}`];
    });

  const noRunStuck = [
    ...record.leftovers.unfinishedIntake.map((entry) => `intake record ${entry.id} (${tagOf(entry.text)}) still ${entry.state}`),
    ...record.leftovers.pendingApprovals.map((entry) => `run ${entry.runId} (${tagOf(entry.text)}) still waits for an approval`),
  ];

  const noApprovalAppliedTwice = [
    ...[...observed.writes]
      .filter(([, attempts]) => attempts.length > 1)
      .map(
        ([n, attempts]) =>
          `approved write m${n}: tried ${attempts.length} times (statuses ${attempts.map((attempt) => attempt.status).join(", ")})`,
      ),
    ...[...observed.approvedNotes]
      .filter(([, texts]) => texts.size > 1)
      .map(([ts, texts]) => `approval card ${ts}: settled as approved ${texts.size} ways: ${[...texts].join(" | ")}`),
  ];

  const noUnexpectedDeath = record.deaths.map(
    (death) =>
      `bot ${death.slot} (start ${death.incarnation}) exited at ${death.atSeconds} s with ${death.signal ?? `code ${death.code}`}:\n      ${death.lastLines.join("\n      ")}`,
  );

  const noRunWithoutTools = [...observed.answers.values()]
    .flat()
    .filter((post) => post.text.includes("missing-tools"))
    .map((post) => `"${post.text.slice(0, 80)}" in thread ${post.threadTs}: the run did not have the tools its process serves`);

  const noRunFailed = [...observed.apologies.values()].flat().map((post) => `thread ${post.threadTs}: "${post.text.slice(0, 70)}…"`);

  const hostileFilesRead = record.hostileFiles
    .filter((file) => messages.find((message) => message.n === file.n)?.ackedAt !== undefined)
    .filter((file) =>
      record.modelRequests.every(
        (request) =>
          !(tagOf(request) === `m${file.n}` && request.includes(file.name) && file.expected.some((text) => request.includes(text))),
      ),
    )
    .map((file) => `m${file.n}: no run request says what became of ${file.name} (one of: ${file.expected.join(" | ")})`);

  const inSomeRequest = (text: string) => record.modelRequests.some((request) => request.includes(text));
  const addedReachedARun = [
    ...acked
      .filter((message) => message.talk === "added" || message.talk === "burst")
      .filter((message) => !inSomeRequest(`soak m${message.n} `))
      .map((message) => `${describeMessage(message)}: sent as ${message.talk} and acknowledged, never in a run's request`),
    ...record.edits
      .filter((edit) => edit.ackedAt !== undefined && !inSomeRequest(edit.text))
      .map((edit) => `the edit of m${edit.n} to "${edit.text}" (acknowledged at ${edit.ackedAt} s): never in a run's request`),
  ];

  const noAnswerForDeletedQuestion = messages
    .filter((message) => message.deletedBeforeRun === true)
    .flatMap((message) => {
      const own = replies.get(message.n)!.length;
      if (own > 0) return [`${describeMessage(message)}: deleted before it ran, answered ${own} times`];
      const outcome = outcomeOf(message);
      return outcome && outcome.result !== "deleted"
        ? [`${describeMessage(message)}: deleted before it ran, yet ${outcome.state} (${outcome.result ?? "no result"})`]
        : [];
    });

  const noMessageLeftStreaming = record.leftStreaming.map(
    (message) => `${message.channel} thread ${message.threadTs}: a message still streaming ("${message.text.slice(0, 60)}")`,
  );

  return [
    { name: "answeredOnce", says: "every acknowledged message answered exactly once", failures: answeredOnce },
    { name: "inOrder", says: "in order per conversation (for messages sent after the previous one was acknowledged)", failures: inOrder },
    { name: "writesAtMostOnce", says: "every write at most once", failures: writesAtMostOnce },
    { name: "approvedExactlyOnce", says: "every approved write exactly once (unless Slack refused it)", failures: approvedExactlyOnce },
    { name: "noRunStuck", says: "no run stuck (every intake record done, no approval left waiting)", failures: noRunStuck },
    { name: "noApprovalAppliedTwice", says: "no approval applied twice", failures: noApprovalAppliedTwice },
    { name: "noUnexpectedDeath", says: "no process died except the ones the soak killed", failures: noUnexpectedDeath },
    { name: "noRunWithoutTools", says: "no run went without the tools its process serves", failures: noRunWithoutTools },
    { name: "noRunFailed", says: "no run ended in an apology instead of its answer", failures: noRunFailed },
    {
      name: "hostileFilesRead",
      says: "every hostile file fetched and refused (or read) by a file reader, named in its run",
      failures: hostileFilesRead,
    },
    {
      name: "noMessageLeftStreaming",
      says: "no message left streaming (every stream stopped, or taken over after a crash)",
      failures: noMessageLeftStreaming,
    },
    { name: "addedReachedARun", says: "every acknowledged steer, burst message or edit reached a run", failures: addedReachedARun },
    {
      name: "noAnswerForDeletedQuestion",
      says: "no answer for a question deleted before it ran",
      failures: noAnswerForDeletedQuestion,
    },
  ];
}
