// The people: conversations of 1–3 messages in a few channels (and talk conversations: talk.ts), each message a mention the
// fake Slack delivers to one live bot process (and again to another one for 20 % of them, at
// once or right after the ack, as Slack does when an ack was slow), retried elsewhere when a
// delivery finds no process or no answer within 3 s. A person waits for the answer before the
// next message half the time (always after an approval or before a Stop), clicks Approve on
// approval cards (sometimes twice, on two processes) and Stop on slow runs, and clicks again
// when nothing happens for a while. What each message is and does comes from the seed.
import { setTimeout as sleep } from "node:timers/promises";
import { APPROVE_ACTION } from "../src/adapters/slack/approval-message.js";
import { STOP_ACTION } from "../src/adapters/slack/slack-working.js";
import { BOT_USER_ID, type FakeSlack } from "../test/support/fake-slack.js";
import { blockActionPayload, mentionEvent, nextEventId } from "../test/support/fake-slack-requests.js";
import type { BotSlot, Fleet } from "./fleet.js";
import type { Button, Observed } from "./observer.js";
import { planFor, type Plan } from "./plans.js";
import { hashOf } from "./random.js";
import { acked, deliverClick, deliverEvent, type Delivery, type Retry } from "./slack-delivery.js";
import { createTalk } from "./talk.js";
import type { SentEdit } from "./taken-up.js";

export const CHANNELS = ["C0SOAK1", "C0SOAK2", "C0SOAK3"] as const;
const USERS = ["U0ALICE", "U0BOB", "U0CAROL"] as const;
const MESSAGES_PER_CONVERSATION = 3;
const REDELIVERED_SHARE = 0.2;
const DELIVERY_ATTEMPTS = 8;
const ANSWER_WAIT_MS = 150_000;
const CLICK_AGAIN_AFTER_MS = 15_000;
const MAX_APPROVE_CLICKS = 5;
const MAX_STOP_CLICKS = 3;
const DOUBLE_CLICK_SHARE = 0.3;
/** One conversation in this many is a talk conversation (talk.ts). */
const TALK_SHARE = 5;

export interface SentMessage {
  /** The message's number: its text says `soak m<n>`. */
  readonly n: number;
  readonly conversation: number;
  /** Its place in the conversation, from 0. */
  readonly index: number;
  readonly channel: string;
  readonly threadTs: string;
  readonly ts: string;
  readonly user: string;
  readonly plan: Plan;
  /** Seconds since the soak started. */
  readonly sentAt: number;
  /** The fake's call count when it was sent: calls from this index on came after it. */
  readonly sentSeq: number;
  /** The conversation's previous message was acknowledged before this one was sent (or there was none). */
  readonly afterPreviousAck: boolean;
  deliveries: number;
  ackedAt: number | undefined;
  approveClicks: number;
  stopClicks: number;
  /** In a talk conversation (talk.ts): its first message, one sent to join its run (a steer, a burst's), or someone else's. */
  readonly talk?: "root" | "added" | "burst" | "other";
  /** Deleted, acknowledged, while the run before it in its conversation still worked: it must never be answered. */
  deletedBeforeRun?: boolean;
}

/** What a message is before it is sent: the rest is counted as it goes. */
export type NewMessage = Omit<SentMessage, "sentAt" | "sentSeq" | "deliveries" | "ackedAt" | "approveClicks" | "stopClicks">;

export interface TrafficCounts {
  conversations: number;
  messages: number;
  deliveries: number;
  deliberateRedeliveries: number;
  retriedDeliveries: number;
  unacked: number;
  approveClicks: number;
  doubleClicks: number;
  stopClicks: number;
  /** Talk conversations (talk.ts) among them. */
  talks: number;
}

export interface Traffic {
  readonly messages: SentMessage[];
  /** Edits the talk conversations sent. */
  readonly edits: SentEdit[];
  readonly byN: ReadonlyMap<number, SentMessage>;
  readonly counts: TrafficCounts;
  /** Starts conversations until `endAt` (performance.now()), then lets the ones in flight finish. */
  run(endAt: number): Promise<void>;
}

export interface TrafficDeps {
  readonly seed: number;
  readonly slack: FakeSlack;
  readonly fleet: Fleet;
  readonly observed: Observed;
  readonly conversations: number;
  /** Seconds on the soak's clock. */
  readonly clock: () => number;
  /** The Slack file objects message n carries. */
  readonly filesFor: (n: number) => readonly object[];
}

export function createTraffic(deps: TrafficDeps): Traffic {
  const { seed, slack, fleet, observed } = deps;
  const messages: SentMessage[] = [];
  const byN = new Map<number, SentMessage>();
  const counts: TrafficCounts = {
    conversations: 0,
    messages: 0,
    deliveries: 0,
    deliberateRedeliveries: 0,
    retriedDeliveries: 0,
    unacked: 0,
    approveClicks: 0,
    doubleClicks: 0,
    stopClicks: 0,
    talks: 0,
  };
  const seconds = deps.clock;
  let tsCounter = 0;
  const nextTs = () => `${1_800_000_000 + ++tsCounter}.000200`;
  let ending = false;
  const edits: SentEdit[] = [];

  /** A message as it is sent: counted, and found by its number. */
  function register(fields: NewMessage): SentMessage {
    const message: SentMessage = {
      ...fields,
      sentAt: seconds(),
      sentSeq: slack.calls.length,
      deliveries: 0,
      ackedAt: undefined,
      approveClicks: 0,
      stopClicks: 0,
    };
    messages.push(message);
    byN.set(message.n, message);
    counts.messages += 1;
    return message;
  }
  const talk = createTalk({ seed, slack, fleet, observed, clock: seconds, nextTs, edits, sent: register });

  /** A live process, chosen from `draw`; waits while none is up. */
  async function liveSlot(draw: number, avoid?: BotSlot): Promise<BotSlot | undefined> {
    for (let wait = 0; wait < 100; wait++) {
      const live = fleet.live().filter((slot) => slot !== avoid);
      if (live.length > 0) return live[draw % live.length];
      await sleep(200);
    }
    return undefined;
  }

  async function deliverTo(message: SentMessage, slot: BotSlot, payload: Record<string, unknown>, retry?: Retry): Promise<Delivery> {
    message.deliveries += 1;
    counts.deliveries += 1;
    return deliverEvent(`${slot.url}/slack/events`, payload, retry);
  }

  /** Delivers again to another live process than `first` (Slack's redelivery when an ack was late). */
  async function redeliver(message: SentMessage, payload: Record<string, unknown>, draw: number, first: BotSlot): Promise<void> {
    const other = await liveSlot(draw, first);
    if (!other) return;
    if (acked(await deliverTo(message, other, payload, { num: 1, reason: "http_timeout" }))) message.ackedAt ??= seconds();
  }

  async function send(message: SentMessage, payload: Record<string, unknown>): Promise<void> {
    const h = (what: string) => hashOf(seed, "send", message.n, what);
    const again = h("redeliver") % 1000 < REDELIVERED_SHARE * 1000;
    const concurrently = h("concurrently") % 2 === 0;
    if (again) counts.deliberateRedeliveries += 1;
    let retry: Retry | undefined;
    let first: BotSlot | undefined;
    for (let attempt = 0; attempt < DELIVERY_ATTEMPTS && message.ackedAt === undefined; attempt++) {
      if (attempt > 0) counts.retriedDeliveries += 1;
      const slot = await liveSlot(h(`target ${attempt}`));
      if (slot) {
        first ??= slot;
        const sending = deliverTo(message, slot, payload, retry);
        // Slack gave up waiting for the first delivery's ack and sends it again while the first is still being handled.
        if (attempt === 0 && again && concurrently) void sleep(50).then(() => redeliver(message, payload, h("again"), slot));
        const delivery = await sending;
        if (acked(delivery)) {
          message.ackedAt ??= seconds();
          break;
        }
        retry = {
          num: attempt + 1,
          reason: delivery.kind === "no_answer" ? "http_timeout" : delivery.kind === "no_connection" ? "connection_failed" : "http_error",
        };
      }
      await sleep(500 * (attempt + 1));
    }
    if (message.ackedAt === undefined) counts.unacked += 1;
    else if (again && !concurrently && first) await redeliver(message, payload, h("again"), first);
  }

  /** Something came back for the message: its answer, or an apology or storage trouble in its thread after it was sent. */
  const heardBack = (message: SentMessage): boolean =>
    (observed.answers.get(message.n)?.length ?? 0) > 0 ||
    [observed.apologies, observed.storageTrouble].some((map) => map.get(message.threadTs)?.some((post) => post.seq >= message.sentSeq));

  async function click(message: SentMessage, button: Button, actionId: string, draw: number, double: boolean): Promise<void> {
    const payload = blockActionPayload({
      user: message.user,
      actionId,
      value: button.value,
      channel: button.channel,
      messageTs: button.ts,
      threadTs: button.threadTs,
      blocks: button.blocks,
    });
    const once = async (slot: BotSlot | undefined) => {
      if (slot) await deliverClick(`${slot.url}/slack/events`, payload);
    };
    const slot = await liveSlot(draw);
    await Promise.all([once(slot), double ? liveSlot(draw + 1, slot).then(once) : undefined]);
  }

  /** Waits for the message's answer, clicking Approve or Stop as its plan says; false when nothing came in time. */
  async function awaitAnswer(message: SentMessage): Promise<boolean> {
    const h = (what: string) => hashOf(seed, "click", message.n, what);
    const deadline = performance.now() + ANSWER_WAIT_MS;
    let seenAt: number | undefined;
    let clickedAt = 0;
    while (performance.now() < deadline) {
      if (heardBack(message)) return true;
      const now = performance.now();
      const button =
        message.plan.kind === "approved"
          ? observed.cards.get(message.n)?.at(-1)
          : message.plan.kind === "stop"
            ? observed.stopButtons
                .get(message.threadTs)
                ?.filter((candidate) => candidate.seq >= message.sentSeq)
                .at(-1)
            : undefined;
      if (button) {
        seenAt ??= now;
        const approve = message.plan.kind === "approved";
        const clicks = approve ? message.approveClicks : message.stopClicks;
        const due = clicks === 0 ? seenAt + 200 + (h("delay") % 2_300) : clickedAt + CLICK_AGAIN_AFTER_MS;
        if (now >= due && clicks < (approve ? MAX_APPROVE_CLICKS : MAX_STOP_CLICKS)) {
          clickedAt = now;
          const double = approve && h(`double ${clicks}`) % 1000 < DOUBLE_CLICK_SHARE * 1000;
          if (approve) {
            message.approveClicks += 1;
            counts.approveClicks += 1;
          } else {
            message.stopClicks += 1;
            counts.stopClicks += 1;
          }
          if (double) counts.doubleClicks += 1;
          await click(message, button, approve ? APPROVE_ACTION : STOP_ACTION, h(`target ${clicks}`), double);
        }
      }
      await sleep(150);
    }
    return false;
  }

  async function conversation(c: number): Promise<void> {
    const h = (what: string) => hashOf(seed, "conversation", c, what);
    if (h("talk") % TALK_SHARE === 0) {
      counts.conversations += 1;
      counts.talks += 1;
      return talk(c);
    }
    const count = 1 + (h("length") % MESSAGES_PER_CONVERSATION);
    const channel = CHANNELS[h("channel") % CHANNELS.length]!;
    const user = USERS[h("user") % USERS.length]!;
    const threadTs = nextTs();
    counts.conversations += 1;
    let previous: SentMessage | undefined;
    for (let index = 0; index < count && !ending; index++) {
      const n = c * MESSAGES_PER_CONVERSATION + index;
      const plan = planFor(seed, n);
      // A Stop names its run only by thread: the run before it must be over, so the button is this one's.
      if (plan.kind === "stop" && previous?.ackedAt !== undefined && !heardBack(previous)) await awaitAnswer(previous);
      const ts = index === 0 ? threadTs : nextTs();
      const text = `<@${BOT_USER_ID}> soak m${n} ${plan.kind}`;
      const thread = index === 0 ? {} : { thread_ts: threadTs };
      slack.addMessage({ channel, ts, user, text, ...thread });
      const message = register({
        n,
        conversation: c,
        index,
        channel,
        threadTs,
        ts,
        user,
        plan,
        afterPreviousAck: previous === undefined || previous.ackedAt !== undefined,
      });
      const files = deps.filesFor(n);
      await send(message, mentionEvent({ text, ts, channel, user, ...thread, ...(files.length > 0 ? { files } : {}) }, nextEventId()));
      const waits = plan.kind === "approved" || plan.kind === "stop" || hashOf(seed, "waits", n) % 2 === 0;
      if (message.ackedAt !== undefined && waits) await awaitAnswer(message);
      // Longer than the burst window (MESSAGE_DEBOUNCE_MS): these are questions of their own; talk.ts sends bursts.
      else await sleep(400 + (hashOf(seed, "think", n) % 1_100));
      previous = message;
    }
  }

  return {
    messages,
    edits,
    byN,
    counts,
    async run(endAt) {
      let next = 0;
      const lane = async (): Promise<void> => {
        while (performance.now() < endAt) await conversation(next++);
      };
      const ender = setTimeout(() => (ending = true), Math.max(0, endAt - performance.now()));
      await Promise.all(Array.from({ length: deps.conversations }, lane));
      clearTimeout(ender);
    },
  };
}
