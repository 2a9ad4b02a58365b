// What the people see, read from the fake Slack's record of calls (tailed as they come): the
// answers (`ANSWER m<n>`, or the bot's own summary quoting the question; posted, or streamed and
// counted once their stream ends with the run's metadata), apologies and storage-trouble replies per thread, the approval cards
// and Stop buttons (with the message ts a click needs), the approved writes (posts to the write
// channel, under their idempotency key) and the "Approved by" notes per card. A call counts as
// applied only when the fake answered it 200 and ok: a 429 or 500 from the fake applied nothing.
import { APPROVE_ACTION } from "../src/adapters/slack/approval-message.js";
import { STOP_ACTION } from "../src/adapters/slack/slack-working.js";
import { shownText, type FakeSlack, type RecordedCall } from "../test/support/fake-slack.js";
import { WRITE_CHANNEL } from "./plans.js";

export interface Post {
  /** The call's place in the fake's record: the order the posts were made in. */
  readonly seq: number;
  readonly channel: string;
  readonly threadTs: string | undefined;
  readonly text: string;
}

export interface Button {
  readonly seq: number;
  readonly channel: string;
  /** The message carrying the button (what a click names). */
  readonly ts: string;
  readonly threadTs: string;
  readonly value: string;
  readonly blocks: unknown[];
}

export interface WriteAttempt {
  readonly seq: number;
  readonly status: number;
  readonly error: string | undefined;
}

export interface Observed {
  readonly answers: Map<number, Post[]>;
  /** "Sorry, something went wrong on my side…" by thread: a run that failed without its answer. */
  readonly apologies: Map<string, Post[]>;
  /** "Sorry, I could not handle that just now (my storage did not answer)…" by thread: acked but not recorded. */
  readonly storageTrouble: Map<string, Post[]>;
  /** Approval cards by message number (from the write's text in the card). */
  readonly cards: Map<number, Button[]>;
  readonly stopButtons: Map<string, Button[]>;
  /** Approved writes' attempts by message number. */
  readonly writes: Map<number, WriteAttempt[]>;
  /** Applied "Approved by" edits per card ts. */
  readonly approvedNotes: Map<string, Set<string>>;
  /** Calls the fake refused with a 429 or a 500. */
  readonly refused: { count: number };
  /** Reads the calls made since the last time. */
  poll(): void;
}

const ANSWER = /ANSWER m(\d+)\b/;
/** The reply the bot builds without the model (a summary call that failed) quotes the question. */
const QUOTED_QUESTION = /"[^"]*\bsoak m(\d+)\b/;
const WRITE_KEY = /soak-write m(\d+)\b/;
const APOLOGY = "Sorry, something went wrong on my side";
export const STORAGE_TROUBLE = "my storage did not answer";

/** The value of the first button with `actionId` anywhere in `blocks`. */
export function buttonValue(blocks: unknown, actionId: string): string | undefined {
  if (Array.isArray(blocks)) {
    for (const item of blocks) {
      const found = buttonValue(item, actionId);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof blocks !== "object" || blocks === null) return undefined;
  const record = blocks as Record<string, unknown>;
  if (record.action_id === actionId && typeof record.value === "string") return record.value;
  for (const value of Object.values(record)) {
    const found = buttonValue(value, actionId);
    if (found !== undefined) return found;
  }
  return undefined;
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => void map.set(key, [...(map.get(key) ?? []), value]);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** What the observer has seen before the first poll: nothing. */
export function emptyObserved(): Omit<Observed, "poll"> {
  return {
    answers: new Map(),
    apologies: new Map(),
    storageTrouble: new Map(),
    cards: new Map(),
    stopButtons: new Map(),
    writes: new Map(),
    approvedNotes: new Map(),
    refused: { count: 0 },
  };
}

export function observe(slack: FakeSlack): Observed {
  const observed = emptyObserved();
  let read = 0;

  /** The posted message that holds exactly these blocks (the fake keeps the posted array itself). */
  const postedTs = (call: RecordedCall): string | undefined =>
    slack.threadMessages(String(call.args.channel), String(call.args.thread_ts)).find((message) => message.blocks === call.args.blocks)?.ts;

  function take(call: RecordedCall, seq: number): void {
    if (call.status === 429 || call.status === 500) observed.refused.count += 1;
    const channel = String(call.args.channel ?? "");
    const text = str(call.args.text) ?? "";
    if (call.method === "chat.postMessage" && channel === WRITE_CHANNEL) {
      const key = WRITE_KEY.exec(text);
      if (key) push(observed.writes, Number(key[1]), { seq, status: call.status, error: call.error });
      return;
    }
    const applied = call.status === 200 && call.error === undefined;
    if (!applied) return;
    const threadTs = str(call.args.thread_ts);
    // A card settled again with the same words (a late click re-settles it, healing one whose first update failed) is
    // one application; different words (another decider, another decision) are two.
    if (call.method === "chat.update" && text.includes("Approved by")) {
      const ts = String(call.args.ts);
      const texts = observed.approvedNotes.get(ts) ?? new Set<string>();
      observed.approvedNotes.set(ts, texts.add(text));
    }
    const stopValue = buttonValue(call.args.blocks, STOP_ACTION);
    if (stopValue !== undefined) {
      const ts = call.method === "chat.update" ? str(call.args.ts) : postedTs(call);
      const thread = threadTs ?? (call.method === "chat.update" ? slack.message(channel, String(call.args.ts))?.thread_ts : undefined);
      if (ts && thread)
        push(observed.stopButtons, thread, { seq, channel, ts, threadTs: thread, value: stopValue, blocks: call.args.blocks as unknown[] });
    }
    // A streamed answer is whole once its stream stops (or an update takes it over) with the run's metadata on it.
    const streamed =
      call.method === "chat.stopStream" || call.method === "chat.update" ? slack.message(channel, String(call.args.ts)) : undefined;
    if (streamed?.metadata?.event_type === "agent_answer") {
      const answer = ANSWER.exec(shownText(streamed)) ?? QUOTED_QUESTION.exec(shownText(streamed));
      if (answer) push(observed.answers, Number(answer[1]), { seq, channel, threadTs: streamed.thread_ts, text: shownText(streamed) });
      return;
    }
    if (call.method !== "chat.postMessage") return;
    const approveValue = buttonValue(call.args.blocks, APPROVE_ACTION);
    if (approveValue !== undefined) {
      const key = WRITE_KEY.exec(JSON.stringify(call.args.blocks));
      const ts = postedTs(call);
      if (key && ts && threadTs)
        push(observed.cards, Number(key[1]), { seq, channel, ts, threadTs, value: approveValue, blocks: call.args.blocks as unknown[] });
      return;
    }
    const post: Post = { seq, channel, threadTs, text };
    const answer = ANSWER.exec(text) ?? QUOTED_QUESTION.exec(text);
    if (answer) push(observed.answers, Number(answer[1]), post);
    else if (text.includes(APOLOGY) && threadTs) push(observed.apologies, threadTs, post);
    else if (text.includes(STORAGE_TROUBLE) && threadTs) push(observed.storageTrouble, threadTs, post);
  }

  return {
    ...observed,
    poll() {
      const calls = slack.calls;
      for (; read < calls.length; read++) take(calls[read]!, read);
    },
  };
}
