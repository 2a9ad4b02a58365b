// How the fake Discord makes, edits and refuses the bot's messages as Discord does: content over
// 2,000 characters is refused wherever it is sent, and so are buttons Discord would not take (a
// link button with a custom id or without a url, or a url past 512 characters; any other button
// without a custom id of 1-100 characters or with a url; a label past 80; rows of 1-5 buttons, at
// most 5 rows); an interaction's callback is answered once (a reply or a deferral becomes the
// original message, an update edits it).
import { modalProblems } from "./fake-discord-modals.js";
import { MessageFlags, type APIMessage } from "discord.js";
import { apiMessage, type FakeUser } from "./fake-discord-payloads.js";

/** Discord's limit on a message's content. */
export const MESSAGE_MAX_CHARS = 2_000;

type StoredMessage = APIMessage & { guild_id?: string };

export interface InteractionState {
  readonly id: string;
  readonly channelId: string;
  readonly guildId?: string;
  acknowledged: boolean;
  originalId?: string;
  /** When Discord created it: its token works for 15 minutes (a test may end it sooner). */
  readonly createdAt: number;
  expired?: boolean;
}

/** An interaction's first answer (a reply, a deferral, a modal) must come within 3 seconds. */
export const INITIAL_RESPONSE_MS = 3_000;

/** Discord accepts an interaction's token for 15 minutes, then answers 401 Invalid Webhook Token. */
export const INTERACTION_TOKEN_MS = 15 * 60_000;
export const invalidWebhookToken = { status: 401, body: { message: "Invalid Webhook Token", code: 50027 } };

export function tokenExpired(interaction: InteractionState, now: number): boolean {
  return interaction.expired === true || now - interaction.createdAt > INTERACTION_TOKEN_MS;
}

/** Discord refuses message content over 2,000 characters (50035 Invalid Form Body), wherever it is sent. */
export function tooLongRefusal(method: string, body: any): { status: number; body: unknown } | undefined {
  if ((method !== "POST" && method !== "PATCH") || typeof body?.content !== "string" || body.content.length <= MESSAGE_MAX_CHARS)
    return undefined;
  return {
    status: 400,
    body: {
      message: "Invalid Form Body",
      code: 50035,
      errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } },
    },
  };
}

const LINK_STYLE = 5;
const ACTION_ROW = 1;
const BUTTON = 2;

function buttonProblems(button: Record<string, any>, where: string): string[] {
  const problems: string[] = [];
  const text = (value: unknown): value is string => typeof value === "string";
  if (button.label !== undefined && (!text(button.label) || button.label.length > 80))
    problems.push(`${where}.label: at most 80 characters`);
  if (button.style === LINK_STYLE) {
    if (!text(button.url) || button.url.length === 0 || button.url.length > 512)
      problems.push(`${where}.url: a link button has a url of 1-512 characters`);
    if ("custom_id" in button) problems.push(`${where}.custom_id: a link button has none`);
  } else {
    if (!text(button.custom_id) || button.custom_id.length === 0 || button.custom_id.length > 100)
      problems.push(`${where}.custom_id: 1-100 characters`);
    if ("url" in button) problems.push(`${where}.url: only a link button has one`);
  }
  return problems;
}

/** Why Discord would refuse a message's components (rows of buttons), one line per problem. */
export function componentProblems(components: unknown): string[] {
  if (components === undefined) return [];
  if (!Array.isArray(components) || components.length > 5) return ["components: at most 5 rows"];
  return components.flatMap((row: Record<string, any>, index) => {
    if (row?.type !== ACTION_ROW) return [];
    const inner: Record<string, any>[] = Array.isArray(row.components) ? row.components : [];
    const where = `components[${index}]`;
    const count = inner.length === 0 || inner.length > 5 ? [`${where}.components: 1-5 buttons`] : [];
    return [
      ...count,
      ...inner.flatMap((button, at) => (button?.type === BUTTON ? buttonProblems(button, `${where}.components[${at}]`) : [])),
    ];
  });
}

/** Discord refuses a message whose buttons it would not take (50035 Invalid Form Body): sent, edited, or an interaction's answer. */
export function componentsRefusal(method: string, body: any): { status: number; body: unknown } | undefined {
  if (method !== "POST" && method !== "PATCH") return undefined;
  const problems = [...componentProblems(body?.components), ...componentProblems(body?.data?.components)];
  if (problems.length === 0) return undefined;
  return { status: 400, body: { message: "Invalid Form Body", code: 50035, errors: problems } };
}

export function botMessage(
  app: { readonly bot: FakeUser; readonly applicationId: string },
  channelId: string,
  body: any,
  guildId: string | undefined,
  interactionType?: number,
): StoredMessage {
  return apiMessage({
    channelId,
    ...(guildId ? { guildId } : {}),
    author: app.bot,
    content: String(body?.content ?? ""),
    components: body?.components ?? [],
    flags: Number(body?.flags ?? 0),
    ...(Array.isArray(body?.attachments) ? { attachments: body.attachments } : {}),
    ...(body?.message_reference?.message_id ? { replyTo: body.message_reference.message_id } : {}),
    ...(interactionType ? { interactionType, webhookId: app.applicationId } : {}),
  });
}

export function editMessage(message: StoredMessage, body: any): APIMessage {
  if (body && "content" in body) message.content = String(body.content);
  if (body && "components" in body) message.components = body.components;
  message.flags = (message.flags ?? 0) & ~MessageFlags.Loading;
  message.edited_timestamp = new Date().toISOString();
  return message;
}

/** Answers an interaction's callback: once only (40060 after that). */
export function answerCallback(
  interaction: InteractionState,
  body: any,
  messages: {
    post(content: any): StoredMessage;
    find(id: string): StoredMessage | undefined;
    edit(message: StoredMessage, data: any): unknown;
    /** A modal this interaction was answered with. */
    modal?(data: any): void;
  },
): { status: number; body?: unknown } {
  if (interaction.acknowledged) return { status: 400, body: { message: "Interaction has already been acknowledged.", code: 40060 } };
  // The first answer comes within 3 s, or Discord has forgotten the interaction.
  if (Date.now() - interaction.createdAt > INITIAL_RESPONSE_MS)
    return { status: 404, body: { message: "Unknown interaction", code: 10062 } };
  if (body?.type === 9) {
    const problems = modalProblems(body.data);
    if (problems.length > 0) return { status: 400, body: { message: "Invalid Form Body", code: 50035, errors: problems } };
    interaction.acknowledged = true;
    messages.modal?.(body.data);
    return { status: 204 };
  }
  interaction.acknowledged = true;
  const flags = Number(body?.data?.flags ?? 0) & MessageFlags.Ephemeral;
  if (body.type === 4 || body.type === 5) {
    const content = body.type === 4 ? body.data : { content: "", flags: flags | MessageFlags.Loading };
    interaction.originalId = messages.post({ ...content, flags: flags | Number(content.flags ?? 0) }).id;
  } else if (body.type === 7 && interaction.originalId) {
    const message = messages.find(interaction.originalId);
    if (message) messages.edit(message, body.data);
  }
  return { status: 204 };
}
