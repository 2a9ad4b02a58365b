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
import { channelMessageEvent, mentionEvent, postEvent } from "./fake-slack-requests.js";
import { settingsOf } from "./governance-harness.js";
import { heldModel, type HeldModel } from "./held-model.js";
import { ScriptedModel, type ScriptStep } from "./model-scripted.js";
import { startSlackHarness } from "./slack-harness.js";

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
    let ts = 1_700_500_000;
    let thread: string | undefined;
    const next = () => `${++ts}.000100`;
    const messages = (): FakeMessage[] => (thread ? h.fake.threadMessages("C0GENERAL", thread) : []);
    return {
      model,
      requests: scripted.requests,
      store: h.store,
      async ask(who, text) {
        const at = next();
        thread = at;
        await postEvent(h.eventsUrl, mentionEvent({ user: SLACK_PEOPLE[who], text: `<@${BOT_USER_ID}> ${text}`, ts: at }));
        return at;
      },
      async say(who, text) {
        const at = next();
        await postEvent(h.eventsUrl, channelMessageEvent({ user: SLACK_PEOPLE[who], text, ts: at, thread_ts: thread! }));
        return at;
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
