// Talk conversations, in their own channel (whose settings steer): a person who does not wait.
// Each is one of: a steer (a reply in the thread while the run works), a burst (two more replies
// right after the question), an edit of the question while it runs, someone else's question
// deleted while it waits behind the run, or the question itself deleted while it runs. Edits and
// deletions are delivered again half the time, as Slack does when an ack was slow. What the
// checks expect of them: every steer, burst message and edit in some run's request, and no
// answer for a question deleted before it ran (checks.ts, taken-up.ts).
import { setTimeout as sleep } from "node:timers/promises";
import { BOT_USER_ID, type FakeSlack } from "../test/support/fake-slack.js";
import {
  channelMessageEvent,
  mentionEvent,
  messageChangedEvent,
  messageDeletedEvent,
  nextEventId,
} from "../test/support/fake-slack-requests.js";
import type { BotSlot, Fleet } from "./fleet.js";
import type { Observed } from "./observer.js";
import { TALK_CHANNEL, TALK_PLAN } from "./plans.js";
import { hashOf } from "./random.js";
import { acked, deliverEvent } from "./slack-delivery.js";
import type { SentEdit } from "./taken-up.js";
import type { NewMessage, SentMessage } from "./traffic.js";

const TALKERS = ["U0DANA", "U0EVE"] as const;
const KINDS = ["steer", "burst", "edit", "delete-waiting", "delete-running"] as const;
const DELIVERY_ATTEMPTS = 8;
/** Past the burst window (MESSAGE_DEBOUNCE_MS, 300 ms in the soak) and into the run's first model call or tool. */
const MID_RUN_MS = 700;
const ANSWER_WAIT_MS = 120_000;

export interface TalkDeps {
  readonly seed: number;
  readonly slack: FakeSlack;
  readonly fleet: Fleet;
  readonly observed: Observed;
  readonly clock: () => number;
  readonly nextTs: () => string;
  /** Registers a message as sent (the traffic's list); returns it. */
  readonly sent: (message: NewMessage) => SentMessage;
  readonly edits: SentEdit[];
}

export function createTalk(deps: TalkDeps) {
  const { seed, slack, fleet, observed } = deps;

  /** Delivered to a live process until one acknowledges it (and, half the time, once more after that); true once acknowledged. */
  async function deliver(payload: Record<string, unknown>, draw: number, counted?: SentMessage): Promise<boolean> {
    let done = false;
    for (let attempt = 0; attempt < DELIVERY_ATTEMPTS && !done; attempt++) {
      const live = fleet.live();
      if (live.length === 0) {
        await sleep(500);
        continue;
      }
      const slot: BotSlot = live[(draw + attempt) % live.length]!;
      if (counted) counted.deliveries += 1;
      const retry = attempt === 0 ? undefined : { num: attempt, reason: "http_timeout" as const };
      done = acked(await deliverEvent(`${slot.url}/slack/events`, payload, retry));
      if (!done) await sleep(300 * (attempt + 1));
    }
    if (done && draw % 2 === 0) {
      const again = fleet.live()[(draw + 1) % Math.max(1, fleet.live().length)];
      if (again) await deliverEvent(`${again.url}/slack/events`, payload, { num: 1, reason: "http_timeout" });
    }
    return done;
  }

  /** Some answer in the thread, after `since` (the run's answer names its newest message). */
  const answeredIn = (threadTs: string, since: number) =>
    [...observed.answers.values()].flat().some((post) => post.threadTs === threadTs && post.seq >= since);

  async function waitForAnswer(threadTs: string, since: number): Promise<void> {
    const deadline = performance.now() + ANSWER_WAIT_MS;
    while (performance.now() < deadline && !answeredIn(threadTs, since)) await sleep(200);
  }

  async function message(
    c: number,
    index: number,
    who: string,
    threadTs: string,
    role: NonNullable<SentMessage["talk"]>,
  ): Promise<SentMessage> {
    const n = c * 3 + index;
    const ts = index === 0 ? threadTs : deps.nextTs();
    const mention = role === "root" || role === "other";
    const text = `${mention ? `<@${BOT_USER_ID}> ` : ""}soak m${n} ${role === "root" ? "talk" : role}`;
    slack.addMessage({ channel: TALK_CHANNEL, ts, user: who, text, ...(index === 0 ? {} : { thread_ts: threadTs }) });
    const sent = deps.sent({
      n,
      conversation: c,
      index,
      channel: TALK_CHANNEL,
      threadTs,
      ts,
      user: who,
      plan: TALK_PLAN,
      afterPreviousAck: true,
      talk: role,
    });
    const thread = index === 0 ? {} : { thread_ts: threadTs };
    const payload = mention
      ? mentionEvent({ text, ts, channel: TALK_CHANNEL, user: who, ...thread }, nextEventId())
      : channelMessageEvent({ text, ts, channel: TALK_CHANNEL, user: who, ...thread }, nextEventId());
    if (await deliver(payload, hashOf(seed, "talk-deliver", n), sent)) sent.ackedAt = deps.clock();
    return sent;
  }

  return async function talk(c: number): Promise<void> {
    const kind = KINDS[hashOf(seed, "talk-kind", c) % KINDS.length]!;
    const [dana, eve] = TALKERS;
    const threadTs = deps.nextTs();
    const since = slack.calls.length;
    const root = await message(c, 0, dana, threadTs, "root");
    if (root.ackedAt === undefined) return;
    if (kind === "burst") {
      await message(c, 1, dana, threadTs, "burst");
      await message(c, 2, dana, threadTs, "burst");
    } else if (kind === "steer") {
      await sleep(MID_RUN_MS);
      await message(c, 1, dana, threadTs, "added");
    } else if (kind === "edit") {
      await sleep(MID_RUN_MS);
      const text = `<@${BOT_USER_ID}> soak m${root.n} talk edited`;
      const edit: SentEdit = {
        n: root.n,
        channel: TALK_CHANNEL,
        ts: root.ts,
        editedTs: deps.nextTs(),
        text: `soak m${root.n} talk edited`,
        ackedAt: undefined,
      };
      deps.edits.push(edit);
      const payload = messageChangedEvent(
        {
          user: dana,
          channel: TALK_CHANNEL,
          ts: root.ts,
          text,
          previousText: `<@${BOT_USER_ID}> soak m${root.n} talk`,
          editedTs: edit.editedTs,
        },
        nextEventId(),
      );
      if (await deliver(payload, hashOf(seed, "talk-edit", c))) edit.ackedAt = deps.clock();
    } else if (kind === "delete-waiting") {
      const other = await message(c, 1, eve, threadTs, "other");
      const payload = messageDeletedEvent(
        { user: eve, channel: TALK_CHANNEL, ts: other.ts, thread_ts: threadTs, text: "deleted", deletedAt: deps.nextTs() },
        nextEventId(),
      );
      // Before it ran only when the run before it still works once the deletion is acknowledged.
      if (other.ackedAt !== undefined && (await deliver(payload, hashOf(seed, "talk-delete", c))) && !answeredIn(threadTs, since))
        other.deletedBeforeRun = true;
    } else {
      await sleep(MID_RUN_MS);
      const payload = messageDeletedEvent(
        { user: dana, channel: TALK_CHANNEL, ts: root.ts, text: "deleted", deletedAt: deps.nextTs() },
        nextEventId(),
      );
      await deliver(payload, hashOf(seed, "talk-delete", c));
      return;
    }
    await waitForAnswer(threadTs, since);
  };
}
