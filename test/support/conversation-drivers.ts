// One driver per chat platform for the conversation contract (test/adapters/surface-contract-
// conversations.test.ts): people write to the bot as they do there — a first message, more in the
// same conversation while it works, edits and deletions — through the real platform library and
// the fake server, and the test reads what everyone sees. The model is held call by call
// (held-model.ts), so a test knows where the run stands when a message arrives.
import { FEEDBACK_UP_ACTION } from "../../src/adapters/slack/feedback-buttons.js";
import type { ModelRequest } from "../../src/contracts/types.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { intakeIdFor } from "../../src/runs/intake/intake-store.js";
import { startDiscordHarness } from "./discord-harness.js";
import type { FakeUser } from "./fake-discord-payloads.js";
import { BOT_USER_ID, shownText, type FakeMessage } from "./fake-slack.js";
import { channelMessageEvent, mentionEvent, messageChangedEvent, messageDeletedEvent, postEvent } from "./fake-slack-requests.js";
import { settingsOf } from "./governance-harness.js";
import { heldModel, type HeldModel } from "./held-model.js";
import { ScriptedModel, type ScriptStep } from "./model-scripted.js";
import { startSlackHarness } from "./slack-harness.js";
import { until } from "./until.js";

export type Person = "alice" | "bob";

export interface ConversationOptions {
  /** CONCURRENT_MESSAGES, MESSAGE_DEBOUNCE_MS and the like. */
  readonly env?: Record<string, string>;
  /** The shared channel's own settings (its entry in the settings file). */
  readonly channel?: Record<string, unknown>;
  /** Answers every model call; held call by call. */
  readonly reply: ScriptStep;
}

export interface ConversationSession {
  /** Every model call waits for the test (release) before it answers. */
  readonly model: HeldModel;
  /** What the model was asked, call by call. */
  readonly requests: readonly ModelRequest[];
  readonly store: KeyValueStore;
  /** `who` starts a conversation with the bot (a mention in the shared channel); resolves once the platform had it taken or not. */
  ask(who: Person, text: string): Promise<string>;
  /** `who` writes in that conversation again, as people do there (Slack: a reply in the thread, no mention; Discord: a mention in the channel). */
  say(who: Person, text: string): Promise<string>;
  /** `who` writes in the shared channel without addressing the bot (Slack: at the top level; Discord: no mention). */
  chat(who: Person, text: string): Promise<string>;
  /** Its author edits a message `ask` or `say` sent; `mentionBot`: the edit mentions the bot (it keeps a mention it had on Discord). */
  edit(message: string, text: string, options?: { readonly mentionBot?: boolean }): Promise<void>;
  /** A message `ask` or `say` sent is deleted. Resolves once the platform had it taken or not. */
  remove(message: string): Promise<void>;
  /** The intake id of a message `ask` or `say` sent. */
  intakeIdOf(message: string): string;
  /** The answers shown so far (each carries 👍 / 👎). */
  answers(): number;
  /** What everyone in the conversation sees, answers, progress and traces included. */
  publicText(): string;
  close(): Promise<void>;
}

export interface ConversationDriver {
  readonly name: "slack" | "discord";
  start(options: ConversationOptions): Promise<ConversationSession>;
}

const SLACK_PEOPLE: Record<Person, string> = { alice: "U0ALICE", bob: "U0BOB" };

export const slackConversations: ConversationDriver = {
  name: "slack",
  async start(options) {
    const scripted = new ScriptedModel([], { whenExhausted: options.reply });
    const model = heldModel(scripted);
    const h = await startSlackHarness({
      model,
      env: options.env ?? {},
      ...(options.channel ? { settings: settingsOf({ channels: { C0GENERAL: options.channel } }) } : {}),
    });
    let thread: string | undefined;
    /** What people wrote, as Slack keeps it (conversations.replies lists it with the bot's messages). */
    const written = new Map<string, FakeMessage>();
    const write = (who: Person, text: string, threadTs?: string) => {
      const message = h.fake.addMessage({ channel: "C0GENERAL", ts: h.fake.nextTs(), user: SLACK_PEOPLE[who], text, thread_ts: threadTs });
      written.set(message.ts, message);
      return message;
    };
    /** Where the bot may answer: the threads of the messages people wrote at the channel's top level. */
    const threads: string[] = [];
    const messages = (): FakeMessage[] =>
      threads.flatMap((root) => h.fake.threadMessages("C0GENERAL", root)).filter((message) => message.user === BOT_USER_ID);
    return {
      model,
      requests: scripted.requests,
      store: h.store,
      async ask(who, text) {
        const message = write(who, `<@${BOT_USER_ID}> ${text}`);
        thread = message.ts;
        threads.push(message.ts);
        await postEvent(h.eventsUrl, mentionEvent({ user: SLACK_PEOPLE[who], text: message.text, ts: message.ts }));
        return message.ts;
      },
      async say(who, text) {
        const message = write(who, text, thread);
        await postEvent(h.eventsUrl, channelMessageEvent({ user: SLACK_PEOPLE[who], text, ts: message.ts, thread_ts: thread! }));
        return message.ts;
      },
      async chat(who, text) {
        const message = write(who, text);
        threads.push(message.ts);
        await postEvent(h.eventsUrl, channelMessageEvent({ user: SLACK_PEOPLE[who], text, ts: message.ts }));
        return message.ts;
      },
      async edit(ts, text, options = {}) {
        const message = written.get(ts)!;
        const now = options.mentionBot ? `<@${BOT_USER_ID}> ${text}` : text;
        const event = messageChangedEvent({
          user: message.user!,
          ts,
          ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
          text: now,
          previousText: message.text,
          editedTs: h.fake.nextTs(),
        });
        written.set(ts, { ...message, text: now });
        await postEvent(h.eventsUrl, event);
      },
      async remove(ts) {
        const message = written.get(ts)!;
        const deletedAt = h.fake.nextTs();
        await postEvent(
          h.eventsUrl,
          messageDeletedEvent({
            user: message.user!,
            ts,
            ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
            text: message.text,
            deletedAt,
          }),
        );
      },
      intakeIdOf: (message) => intakeIdFor("slack", `C0GENERAL:${message}`),
      answers: () => messages().filter((message) => JSON.stringify(message.blocks ?? []).includes(FEEDBACK_UP_ACTION)).length,
      publicText: () =>
        messages()
          .map((message) => [shownText(message), JSON.stringify(message.blocks ?? []), JSON.stringify(message.chunks)].join(" "))
          .join("\n"),
      close: () => h.close(),
    };
  },
};

export const discordConversations: ConversationDriver = {
  name: "discord",
  async start(options) {
    let people: Record<Person, FakeUser> | undefined;
    let held: HeldModel | undefined;
    const h = await startDiscordHarness({
      script: [],
      whenExhausted: options.reply,
      env: options.env ?? {},
      wrapModel: (model) => (held = heldModel(model)),
      settings: ({ alice, bob, fake }) => {
        people = { alice, bob };
        return settingsOf(options.channel ? { channels: { [fake.general.id]: options.channel } } : {});
      },
    });
    const { fake } = h;
    const write = async (who: Person, text: string) => fake.userMessage(people![who], text, { mentionBot: true }).id;
    /** A gateway event has no ack to await: the core's log line says it was taken. */
    const handled = (line: string) => {
      const before = h.logs.filter((log) => log.msg === line).length;
      return until(() => h.logs.filter((log) => log.msg === line).length > before, line);
    };
    /** The general channel and the trace threads the bot started in it. */
    const seen = () => [
      fake.general.id,
      ...fake.callsTo("POST", /^\/channels\/\d+\/messages\/(\d+)\/threads$/).map((call) => call.path.split("/")[4]!),
    ];
    return {
      model: held!,
      requests: h.model.requests,
      store: h.store,
      ask: write,
      say: write,
      async chat(who, text) {
        return fake.userMessage(people![who], text).id;
      },
      async edit(id, text, options = {}) {
        const taken = handled("a message was edited");
        fake.editMessage(id, text, { mentionBot: options.mentionBot ?? true });
        await taken;
      },
      async remove(id) {
        const taken = handled("a message was deleted");
        fake.deleteMessage(id);
        await taken;
      },
      intakeIdOf: (message) => intakeIdFor("discord", message),
      answers: () =>
        fake.messagesIn(fake.general.id).filter((message) => JSON.stringify(message.components ?? []).includes('"fb:u:')).length,
      publicText: () =>
        seen()
          .flatMap((channel) => fake.messagesIn(channel))
          .map((message) => `${message.content} ${JSON.stringify(message.components ?? [])}`)
          .join("\n"),
      close: () => h.close(),
    };
  },
};

export const CONVERSATION_DRIVERS: readonly ConversationDriver[] = [slackConversations, discordConversations];
