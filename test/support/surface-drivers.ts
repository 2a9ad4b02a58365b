// One driver per surface for the contract suite (test/adapters/surface-contract.test.ts): each drives
// its surface through the real platform library and fake server as people would (mention the
// bot, click its buttons, run its commands) and reads back what each person sees there — the
// messages everyone in the conversation sees, and the notes only that person sees (ephemeral
// messages, ephemeral interaction replies, direct messages). The settings are a file each start
// reads and then watches, as a bot process does BOT_SETTINGS, and `govern` rewrites it as an admin
// would. A server's form is answered as a person answers it there: the card's buttons and the
// platform's modal, or the console's prompts. The scenarios are written once against this
// interface, so a difference between surfaces is a failing test.
import { join } from "node:path";
import { expect } from "vitest";
import { z } from "zod";
import { ScriptedModel, type ScriptStep } from "./model-scripted.js";
import type { Tool } from "../../src/contracts/types.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import type { RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { APPROVE_ACTION, DENY_ACTION } from "../../src/adapters/slack/approval-message.js";
import { FEEDBACK_DOWN_ACTION, FEEDBACK_UP_ACTION } from "../../src/adapters/slack/feedback-buttons.js";
import { STOP_ACTION } from "../../src/adapters/slack/slack-working.js";
import { FORM_DECLINE_ACTION, FORM_OPEN_ACTION } from "../../src/adapters/slack/form-message.js";
import { FORM_MODAL } from "../../src/adapters/slack/form-modal.js";
import { SEND_PROMPT } from "../../src/adapters/console/console-forms.js";
import { startConsole } from "./console-harness.js";
import { startDiscordHarness } from "./discord-harness.js";
import type { FakeUser } from "./fake-discord-payloads.js";
import { BOT_USER_ID, shownText, type FakeMessage } from "./fake-slack.js";
import {
  actionValue,
  blockActionPayload,
  clickOnMessage,
  mentionEvent,
  postEvent,
  postInteraction,
  viewSubmissionPayload,
} from "./fake-slack-requests.js";
import { submittedValues } from "./fake-slack-views.js";
import type { ModalEntries, OpenedModal } from "./fake-discord-modals.js";
import { storedBytes } from "./store-bytes.js";
import { gatedModel, startSlackHarness } from "./slack-harness.js";
import { settingsOf } from "./governance-harness.js";
import { failingResumes } from "./failing-queue.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import type { HarnessConnect } from "./connect-stand-in.js";
import { temporaryFolder } from "./temporary-folder.js";
import { until } from "./until.js";

/** The people of a scenario: who asks, someone with no say, an approver, an admin. */
export type Who = "alice" | "bob" | "approver" | "admin";
export type Button = "approve" | "deny" | "stop" | "up" | "down";

/** Who the settings file lets use the bot, and where. */
export interface Access {
  /** People the settings block. */
  readonly blocked?: readonly Who[];
  /** The people on the allow list; without it everyone may use the bot. */
  readonly allowed?: readonly Who[];
  /** The shared channel is blocked. */
  readonly channelBlocked?: boolean;
}

export interface StartOptions extends Access {
  readonly script: readonly ScriptStep[];
  /** Every model call waits forever (a run to stop). */
  readonly stuck?: boolean;
  /** The work queue refuses this many resumes, as BullMQ does while Redis is unreachable: a decision is claimed and goes on once one is taken (never, with Infinity: at the next start). */
  readonly resumesRefused?: number;
  /** The clock of the runs, the approvals and the surface (a test moves it past an approval's expiry). */
  readonly clock?: () => number;
  /** How long an approval waits (APPROVAL_TIMEOUT_MS); within Slack's five minutes, a click after it still has a fresh signature. */
  readonly approvalWindowMs?: number;
  /** Tools that act as the person, and the Connect links of the runs that wait for them (connect-stand-in.ts). */
  readonly connect?: HarnessConnect;
  /** Tools that come and go, as an MCP manager hands them over (an MCP server that asks the person, elicitation-harness.ts). */
  readonly toolSource?: () => readonly Tool[];
}

/** The variables `options` set, besides a surface's own. */
const envOf = (options: StartOptions): Record<string, string> =>
  options.approvalWindowMs === undefined ? {} : { APPROVAL_TIMEOUT_MS: String(options.approvalWindowMs) };

export interface Session {
  /** Where post_message may post for the requester: a channel they are in, as the model names it. */
  readonly otherChannel: string;
  /** `who`'s id on this surface. */
  idOf(who: Who): string;
  /** How the core's texts name `who` here (a mention on the chat platforms). */
  mention(who: Who): string;
  /** The name a run's summary gives `who` ("Stopped by <name>."). */
  nameOf(who: Who): string;
  readonly service: RunningAgentService;
  readonly store: KeyValueStore;
  /** A question (or a command word) to the bot in the shared channel. */
  ask(who: Who, text: string): Promise<void>;
  /** One of the core's commands, the way the surface offers them. */
  command(who: Who, name: string): Promise<void>;
  /** Waits until one of the bot's buttons of this kind shows (on the console: its prompt, or a run's step for Stop). */
  waitForButton(button: Button): Promise<void>;
  /** Waits until one of the bot's buttons of this kind shows, then clicks it as `who`. */
  click(who: Who, button: Button): Promise<void>;
  /** Whether a button of this kind shows now, to be clicked (a settled card's are gone or disabled). */
  shows(button: Button): boolean;
  /** What everyone in the conversation sees now. */
  publicText(): string;
  /** What only `who` was shown. */
  privateText(who: Who): string;
  /** The link buttons only `who` was shown, in order (none on the console, which writes its links out). */
  privateLinks(who: Who): readonly LinkButton[];
  /** Everything the store holds on disk, to look through for what must not be stored as it is. */
  storedBytes(): Promise<Buffer>;
  /** Waits until a server's form for the requester shows (its card; on the console, its questions). */
  waitForForm(): Promise<void>;
  /** `who` presses the form card's Answer or Decline (the platforms with several people; the console has no card). */
  pressForm(who: Who, button: "answer" | "decline"): Promise<void>;
  /** `who` sends the form: what `typed` holds in the fields of those labels, every other field as the form shows it (its default). */
  sendForm(who: Who, typed: Readonly<Record<string, string>>): Promise<void>;
  /** `who` declines the form (on the console at its `send? [y/N]`, after its questions; nothing typed there is sent). */
  declineForm(who: Who): Promise<void>;
  /** The messages post_message made in `otherChannel`. */
  writes(): number;
  /** The resumes the work queue refused so far (see `resumesRefused`). */
  refusedResumes(): number;
  /** A new process on the same store, whose model answers with `script`. */
  restart(script: readonly ScriptStep[]): Promise<void>;
  /** An admin rewrites the settings file; resolves once the running bot applied it (a restart reads it too). */
  govern(access: Access): Promise<void>;
  close(): Promise<void>;
}

/** A link button as a person sees it. */
export interface LinkButton {
  readonly label: string;
  readonly url: string;
}

export interface SurfaceDriver {
  readonly name: "slack" | "discord" | "console";
  /** Several people and buttons (the console has one person, who answers its prompts). */
  readonly people: boolean;
  start(options: StartOptions): Promise<Session>;
}

/** Waits (bounded) until `read()` matches. */
export async function seen(read: () => string, expected: RegExp): Promise<void> {
  await until(() => expected.test(read()), `${expected} in:\n${read()}`);
}

const never = new Promise<void>(() => {});
/** The work queue as `options` asks for it: one that refuses resumes, or the harness's own; and how many it refused. */
function queueOf(options: StartOptions): { readonly wrap?: (queue: WorkQueue) => WorkQueue; refused(): number } {
  if (options.resumesRefused === undefined) return { refused: () => 0 };
  let failing: ReturnType<typeof failingResumes> | undefined;
  return {
    wrap: (queue) => (failing = failingResumes(queue, options.resumesRefused!)),
    refused: () => failing?.refused ?? 0,
  };
}
const SLACK_PEOPLE: Record<Who, string> = { alice: "U0ALICE", bob: "U0BOB", approver: "U0CAROL", admin: "U0BOSS" };
const SLACK_ACTIONS: Record<Button, string> = {
  approve: APPROVE_ACTION,
  deny: DENY_ACTION,
  stop: STOP_ACTION,
  up: FEEDBACK_UP_ACTION,
  down: FEEDBACK_DOWN_ACTION,
};

/** The settings file for `access`; `channel` is the shared channel's id (none on the console). */
function settingsFor(surface: "slack" | "discord" | "console", ids: Record<Who, string>, access: Access, channel?: string): Settings {
  const blocked = (access.blocked ?? []).map((who) => ids[who]);
  const allowed = access.allowed?.map((who) => ids[who]);
  // An admin may use the bot anywhere: on the console the one person is the admin unless a scenario refuses them.
  const admins = blocked.includes(ids.admin) || (allowed && !allowed.includes(ids.admin)) ? [] : [ids.admin];
  const channels = access.channelBlocked && channel ? [channel] : [];
  return settingsOf({
    access: { admins: { [surface]: admins }, block: { users: blocked, channels }, allow: { users: allowed ?? [] } },
  });
}

export const slackDriver: SurfaceDriver = {
  name: "slack",
  people: true,
  async start(options) {
    const model = (script: readonly ScriptStep[]) => {
      const scripted = new ScriptedModel(script);
      return options.stuck ? gatedModel(scripted) : scripted;
    };
    const queue = queueOf(options);
    const h = await startSlackHarness({
      model: model(options.script),
      env: { SLACK_APPROVERS: SLACK_PEOPLE.approver, ...envOf(options) },
      settings: settingsFor("slack", SLACK_PEOPLE, options, "C0GENERAL"),
      watchedSettings: true,
      schedules: {},
      ...(queue.wrap ? { wrapQueue: queue.wrap } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.connect ? { connect: options.connect } : {}),
      ...(options.toolSource ? { toolSource: options.toolSource } : {}),
    });
    const threads: string[] = [];
    let ts = 1_700_100_000;
    const messages = (): FakeMessage[] => threads.flatMap((thread) => h.fake.threadMessages("C0GENERAL", thread));
    // A streamed text shows joined as Slack shows it; the chunks stay too, for the trace's task updates.
    const shown = (message: FakeMessage) =>
      [shownText(message), JSON.stringify(message.blocks ?? []), JSON.stringify(message.chunks)].join(" ");
    const ok = (method: string) => h.fake.callsTo(method).filter((call) => call.status === 200 && call.error === undefined);
    const carrying = (button: Button) => messages().find((message) => actionValue(message.blocks, SLACK_ACTIONS[button]) !== undefined);
    /** What only `id` was shown: ephemeral messages in the conversation's channel, and direct messages. */
    const privateTo = (id: string) => [
      ...h.fake.ephemeralsOf(id).filter((ephemeral) => ephemeral.channel === "C0GENERAL"),
      ...ok("chat.postMessage")
        .filter((call) => call.args.channel === id)
        .map((call) => ({ text: String(call.args.text), blocks: call.args.blocks })),
    ];
    /** The newest form card shown to anyone, privately. */
    const formCard = () =>
      Object.values(SLACK_PEOPLE)
        .flatMap((id) => h.fake.ephemeralsOf(id))
        .filter((ephemeral) => actionValue(ephemeral.blocks, FORM_OPEN_ACTION) !== undefined)
        .at(-1);
    const pressCard = async (who: Who, actionId: string) => {
      await session.waitForForm();
      const card = formCard()!;
      const payload = blockActionPayload({
        user: SLACK_PEOPLE[who],
        actionId,
        value: actionValue(card.blocks, actionId)!,
        channel: card.channel,
        messageTs: card.ts,
        threadTs: card.thread_ts ?? card.ts,
        ephemeral: true,
        triggerId: h.fake.trigger(),
      });
      expect((await postInteraction(h.eventsUrl, payload)).status).toBe(200);
    };
    const session: Session = {
      otherChannel: "C0RANDOM",
      idOf: (who) => SLACK_PEOPLE[who],
      mention: (who) => `<@${SLACK_PEOPLE[who]}>`,
      // The fake Slack's users.info knows no names: a person is called by their id.
      nameOf: (who) => SLACK_PEOPLE[who].toLowerCase(),
      get service() {
        return h.service;
      },
      store: h.store,
      async ask(who, text) {
        ts += 1;
        const thread = `${ts}.000100`;
        threads.push(thread);
        await postEvent(h.eventsUrl, mentionEvent({ user: SLACK_PEOPLE[who], text: `<@${BOT_USER_ID}> ${text}`, ts: thread }));
      },
      command: (who, name) => session.ask(who, name),
      waitForButton: (button) => until(() => carrying(button) !== undefined, `a ${button} button in Slack`),
      shows: (button) => carrying(button) !== undefined,
      async click(who, button) {
        const actionId = SLACK_ACTIONS[button];
        await session.waitForButton(button);
        const payload = clickOnMessage(carrying(button)!, { user: SLACK_PEOPLE[who], actionId, triggerId: h.fake.trigger() });
        // Slack takes a click only with a 200 within its 3 s, whatever the core does with it.
        expect((await postInteraction(h.eventsUrl, payload)).status).toBe(200);
      },
      publicText: () => messages().map(shown).join("\n"),
      privateText: (who) =>
        privateTo(SLACK_PEOPLE[who])
          .map((note) => note.text)
          .join("\n"),
      privateLinks: (who) => privateTo(SLACK_PEOPLE[who]).flatMap((note) => slackLinks(note.blocks)),
      storedBytes: () => storedBytes(h.config.storeUrl),
      waitForForm: () => until(() => formCard() !== undefined, "a form's card in Slack"),
      pressForm: (who, button) => pressCard(who, button === "answer" ? FORM_OPEN_ACTION : FORM_DECLINE_ACTION),
      async sendForm(who, typed) {
        const before = h.fake.opened.length;
        await pressCard(who, FORM_OPEN_ACTION);
        await until(() => h.fake.opened.length > before, "the form's modal in Slack");
        const { view } = h.fake.opened.at(-1)!;
        const payload = viewSubmissionPayload({
          user: SLACK_PEOPLE[who],
          callbackId: FORM_MODAL,
          privateMetadata: String(view.private_metadata),
          values: submittedValues(view, typed) as never,
        });
        // A Send Slack takes closes the modal: a 200 with no errors to show under its fields.
        const sent = await postInteraction(h.eventsUrl, payload);
        expect(sent.status).toBe(200);
        expect(sent.text).not.toContain("errors");
      },
      declineForm: (who) => pressCard(who, FORM_DECLINE_ACTION),
      writes: () => ok("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM").length,
      refusedResumes: () => queue.refused(),
      restart: (script) => h.restart(model(script)),
      govern: (access) => h.editSettings(settingsFor("slack", SLACK_PEOPLE, access, "C0GENERAL")),
      close: () => h.close(),
    };
    return session;
  },
};

const EPHEMERAL = 64;

export const discordDriver: SurfaceDriver = {
  name: "discord",
  people: true,
  async start(options) {
    let users: Record<Who, FakeUser> | undefined;
    const idsOf = (people: Record<Who, FakeUser>): Record<Who, string> => ({
      alice: people.alice.id,
      bob: people.bob.id,
      approver: people.approver.id,
      admin: people.admin.id,
    });
    const queue = queueOf(options);
    const h = await startDiscordHarness({
      script: options.script,
      env: envOf(options),
      ...(options.stuck ? { gate: never } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      schedules: {},
      settings: ({ alice, bob, carol, dave, fake }) => {
        users = { alice, bob, approver: carol, admin: dave };
        return settingsFor("discord", idsOf(users), options, fake.general.id);
      },
      watchedSettings: true,
      ...(queue.wrap ? { wrapQueue: queue.wrap } : {}),
      ...(options.connect ? { connect: options.connect } : {}),
      ...(options.toolSource ? { toolSource: options.toolSource } : {}),
    });
    const people = users!;
    const { fake } = h;
    /** Each interaction's token, and whose it is: what its webhook shows only them is theirs. */
    const tokens = new Map<string, { readonly who: Who; readonly command: boolean }>();
    const general = () => fake.messagesIn(fake.general.id).filter((message) => ((message.flags ?? 0) & EPHEMERAL) === 0);
    const customIdOf = (message: { components?: unknown }, prefix: string) =>
      JSON.stringify(message.components ?? []).match(new RegExp(`"custom_id":"(${prefix}[^"]*)"`))?.[1];
    const PREFIXES: Record<Button, string> = { approve: "appr:a:", deny: "appr:d:", stop: "stop:", up: "fb:u:", down: "fb:d:" };
    /** A button of this kind that can still be clicked (a settled card keeps its buttons, disabled). */
    const enabled = (message: { components?: unknown }, prefix: string) =>
      buttonsOf(message.components).some((button) => button.custom_id?.startsWith(prefix) && button.disabled !== true);
    const carrying = (button: Button) => [...general()].reverse().find((message) => enabled(message, PREFIXES[button]));
    /**
     * What only `who` was shown: what the bot answered their interactions privately (an ephemeral reply or
     * follow-up, a command's reply), and their direct messages.
     */
    const privateTo = (who: Who): Array<{ readonly content: string; readonly components: unknown }> => {
      const notes = fake.calls.filter((call) => {
        const [, token, original] = /^\/webhooks\/\d+\/([^/]+)(\/messages\/@original)?$/.exec(call.path) ?? [];
        const [, answered] = /^\/interactions\/\d+\/([^/]+)\/callback$/.exec(call.path) ?? [];
        const owner = tokens.get(token ?? answered ?? "");
        if (owner?.who !== who || call.status >= 300) return false;
        if (answered) return call.body?.type === 4 && (Number(call.body?.data?.flags ?? 0) & EPHEMERAL) !== 0;
        return original ? owner.command && call.method === "PATCH" : (Number(call.body?.flags ?? 0) & EPHEMERAL) !== 0;
      });
      const dm = fake.dmOf(people[who]);
      // An ephemeral answer to someone's click in the DM is theirs alone (it is among their notes).
      const direct = dm ? fake.messagesIn(dm.id).filter((message) => ((message.flags ?? 0) & EPHEMERAL) === 0) : [];
      return [
        ...notes.map((call) => {
          const body = call.body?.data ?? call.body;
          return { content: String(body?.content ?? ""), components: body?.components };
        }),
        ...direct.map((message) => ({ content: message.content, components: message.components })),
      ];
    };
    /** The newest form card shown to anyone (privately: a direct message, or an ephemeral follow-up). */
    const formCard = () =>
      [
        ...fake.messagesIn(fake.general.id),
        ...Object.values(people).flatMap((user) => {
          const dm = fake.dmOf(user);
          return dm ? fake.messagesIn(dm.id) : [];
        }),
      ]
        .filter((message) => customIdOf(message, "form:o:") !== undefined)
        .at(-1);
    const pressCard = async (who: Who, prefix: string) => {
      await session.waitForForm();
      const card = formCard()!;
      tokens.set(fake.clickButton(card.id, customIdOf(card, prefix)!, people[who]).token, { who, command: false });
    };
    const session: Session = {
      otherChannel: `<#${fake.random.id}>`,
      idOf: (who) => people[who].id,
      mention: (who) => `<@${people[who].id}>`,
      nameOf: (who) => people[who].username,
      get service() {
        return h.service;
      },
      get store() {
        return h.store;
      },
      async ask(who, text) {
        fake.userMessage(people[who], text, { mentionBot: true });
      },
      async command(who, name) {
        tokens.set(fake.slashCommand(name, people[who]).token, { who, command: true });
      },
      waitForButton: (button) => until(() => carrying(button) !== undefined, `a ${button} button on Discord`),
      shows: (button) => carrying(button) !== undefined,
      async click(who, button) {
        await session.waitForButton(button);
        const message = carrying(button)!;
        tokens.set(fake.clickButton(message.id, customIdOf(message, PREFIXES[button])!, people[who]).token, { who, command: false });
      },
      publicText: () =>
        general()
          .map((message) => `${message.content} ${JSON.stringify(message.components ?? [])}`)
          .join("\n"),
      privateText: (who) =>
        privateTo(who)
          .map((note) => note.content)
          .join("\n"),
      privateLinks: (who) => privateTo(who).flatMap((note) => discordLinks(note.components)),
      storedBytes: () => storedBytes(h.config.storeUrl),
      waitForForm: () => until(() => formCard() !== undefined, "a form's card on Discord"),
      pressForm: (who, button) => pressCard(who, button === "answer" ? "form:o:" : "form:d:"),
      async sendForm(who, typed) {
        const before = fake.modals.length;
        await pressCard(who, "form:o:");
        await until(() => fake.modals.length > before, "the form's modal on Discord");
        const modal = fake.modals.at(-1)!;
        const sent = fake.submitModal(modal, people[who], modalEntries(modal, typed));
        // A modal's Send is answered as a command is: its deferred reply, edited.
        tokens.set(sent.token, { who, command: true });
      },
      declineForm: (who) => pressCard(who, "form:d:"),
      writes: () => fake.callsTo("POST", new RegExp(`^/channels/${fake.random.id}/messages$`)).filter((call) => call.status < 300).length,
      refusedResumes: () => queue.refused(),
      async restart(script) {
        const identified = fake.gateway.identifies.length;
        await h.restart(script);
        // A new process is a new discord.js client: it identifies to the gateway again.
        expect(fake.gateway.identifies).toHaveLength(identified + 1);
      },
      govern: (access) => h.editSettings(settingsFor("discord", idsOf(people), access, fake.general.id)),
      close: () => h.close(),
    };
    return session;
  },
};

/** The url buttons in Slack blocks. */
function slackLinks(blocks: unknown): LinkButton[] {
  if (Array.isArray(blocks)) return blocks.flatMap(slackLinks);
  if (typeof blocks !== "object" || blocks === null) return [];
  const element = blocks as { readonly type?: unknown; readonly url?: unknown; readonly text?: { readonly text?: unknown } };
  if (element.type === "button" && typeof element.url === "string") return [{ label: String(element.text?.text), url: element.url }];
  return Object.values(element).flatMap(slackLinks);
}

const LINK_STYLE = 5;
/** The link buttons in a Discord message's components. */
function discordLinks(components: unknown): LinkButton[] {
  return buttonsOf(components).flatMap((button) =>
    button.style === LINK_STYLE ? [{ label: String(button.label), url: String(button.url) }] : [],
  );
}

/** A Discord modal's entries for what is typed into the fields of those labels (a select's option by its label or value). */
function modalEntries(modal: OpenedModal, typed: Readonly<Record<string, string>>): ModalEntries {
  const entries: Record<string, string | boolean | readonly string[]> = {};
  for (const label of modal.data.components) {
    const text = typed[String(label.label)];
    const inner = label.component as
      | {
          readonly custom_id: string;
          readonly default?: unknown;
          readonly options?: ReadonlyArray<{ readonly label: string; readonly value: string }>;
        }
      | undefined;
    if (text === undefined || !inner) continue;
    const options = inner.options ?? [];
    if (options.length > 0)
      entries[inner.custom_id] = options.filter((option) => option.label === text || option.value === text).map((option) => option.value);
    else if (typeof inner.default === "boolean") entries[inner.custom_id] = /^(y|yes|true)$/i.test(text);
    else entries[inner.custom_id] = text;
  }
  return entries;
}

/** The buttons in a message's components (action rows of buttons). */
function buttonsOf(components: unknown): Array<{
  readonly custom_id?: string;
  readonly disabled?: boolean;
  readonly style?: number;
  readonly label?: string;
  readonly url?: string;
}> {
  if (!Array.isArray(components)) return [];
  return components.flatMap((row: { components?: unknown }) => (Array.isArray(row?.components) ? row.components : []));
}

/** How the console opens a server's form, asks its next question, and ends it. */
const FORM_OPENS = "asks you to fill in a form";
const FORM_QUESTIONS = "(an empty line takes the default";
const NEXT_QUESTION = /(: |send\? \[y\/N\] )(\x1b\[[0-9;]*[A-Za-z])*$/;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A terminal's line as the person reads it: without the cursor moves the console writes around its prompts. */
const withoutEscapes = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");

/**
 * The console: one person (its user, who is every role here) at a terminal, answering its own
 * prompts: y or n at `approve? [y/N]`, Ctrl-C for Stop; no votes. A restart is a new console on
 * the same store, as `npm start` again is.
 */
export const consoleDriver: SurfaceDriver = {
  name: "console",
  people: false,
  async start(options) {
    const ids: Record<Who, string> = { alice: "console", bob: "nobody", approver: "nobody", admin: "console" };
    let writes = 0;
    // The console has no channels to post in: a write tool of the same name stands in for the platforms' post_message.
    const post: Tool<{ channel: string; text: string }> = {
      name: "post_message",
      description: "Post a message (the person approves it first).",
      schema: z.object({ channel: z.string(), text: z.string() }),
      effect: "write",
      async execute() {
        writes += 1;
        return `Posted (${writes}).`;
      },
    };
    const folder = await temporaryFolder();
    let access: Access = options;
    const queue = queueOf(options);
    const open = (script: readonly ScriptStep[]) => {
      const scripted = new ScriptedModel(script);
      return startConsole({
        model: options.stuck ? gatedModel(scripted) : scripted,
        tools: [post],
        env: { STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, ...envOf(options) },
        terminal: true,
        settings: settingsFor("console", ids, access),
        watchedSettings: true,
        schedules: {},
        ...(queue.wrap ? { wrapQueue: queue.wrap } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.connect ? { connect: options.connect } : {}),
        ...(options.toolSource ? { toolSource: options.toolSource } : {}),
      });
    };
    let h = await open(options.script);
    /** What the consoles before a restart showed. */
    let before = "";
    /**
     * Answers the form's questions from its first one on: each field's prompt with what `typed` holds for its label
     * (a required one with none gets `filler`), an empty line otherwise (the default), then `send? [y/N]` with `send`.
     */
    const answerForm = async (typed: Readonly<Record<string, string>>, send: "y" | "n", filler?: string) => {
      await session.waitForForm();
      let at = await h.waitFor(FORM_QUESTIONS, h.text().lastIndexOf(FORM_OPENS));
      for (;;) {
        at = await h.waitFor(NEXT_QUESTION, at);
        const asked = withoutEscapes(h.text().slice(h.text().lastIndexOf("\n", at - 1) + 1, at));
        if (asked.endsWith(SEND_PROMPT)) return h.type(send);
        const label = Object.keys(typed).find((name) => new RegExp(`^\\s*${escaped(name)}( \\(| \\[|: )`).test(asked));
        h.type(label !== undefined ? typed[label]! : asked.includes("(required)") && filler !== undefined ? filler : "");
      }
    };
    const session: Session = {
      otherChannel: "C0RANDOM",
      idOf: (who) => ids[who],
      mention: (who) => ids[who],
      // The console's person is its terminal's user.
      nameOf: () => "ada",
      get service() {
        return h.service;
      },
      get store() {
        return h.store;
      },
      ask: async (_who, text) => h.type(text),
      command: async (_who, name) => h.type(`/${name}`),
      async waitForButton(button) {
        if (button === "up" || button === "down") throw new Error(`the console has no ${button} button`);
        // Ctrl-C stops the run once it took a step (its status line shows it).
        await h.waitFor(button === "stop" ? "waiting for the model" : "approve? [y/N]");
      },
      shows: () => false,
      async click(_who, button) {
        await session.waitForButton(button);
        if (button === "stop") h.press("\u0003");
        else h.type(button === "approve" ? "y" : "n");
      },
      publicText: () => before + h.text(),
      privateText: () => before + h.text(),
      privateLinks: () => [],
      storedBytes: () => storedBytes(`sqlite://${join(folder.path, "bot.sqlite")}`),
      waitForForm: async () => void (await h.waitFor(FORM_OPENS)),
      pressForm() {
        throw new Error("the console has no form card: its questions are answered at the prompt");
      },
      sendForm: (_who, typed) => answerForm(typed, "y"),
      // Nothing is sent on a decline: a required field gets any word, to reach the question that declines.
      declineForm: () => answerForm({}, "n", "-"),
      writes: () => writes,
      refusedResumes: () => queue.refused(),
      async restart(script) {
        await h.close();
        before += h.text();
        h = await open(script);
      },
      async govern(changed) {
        access = changed;
        await h.editSettings(settingsFor("console", ids, changed));
      },
      async close() {
        await h.close();
        await folder.remove();
      },
    };
    return session;
  },
};
