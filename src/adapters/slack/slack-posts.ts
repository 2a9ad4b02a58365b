// Every message the bot writes into a Slack conversation goes out here. Each call says whether
// Slack took it and never throws: a refusal is logged (an answer in full, so nothing is lost
// silently). A post someone waits for is tried again when Slack fails in a way worth retrying
// (the client already retries rate limits, network and HTTP errors); a note with another way to
// go (the core's private-note rule) is tried once.
import type { types, webApi } from "@slack/bolt";
import type { GuardStop } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import { attempt, type Failure } from "../core/attempt.js";
import { splitText } from "../core/split-text.js";
import type { NoteLink } from "../../runs/api/presenting.js";
import { linkNoteBlocks } from "./link-button.js";
import { describeSlackError, slackErrorCode } from "./slack-api.js";
import { escapeSlackText, MESSAGE_MAX_CHARS, neutraliseMentions, toSlackMrkdwn } from "./slack-text.js";

const RETRY_DELAYS_MS: readonly number[] = [300, 1_000];
const EMPTY_ANSWER = "_(The model gave an empty answer.)_";
const TRANSIENT_ERRORS = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited"]);

export interface Where {
  readonly channel: string;
  /** Undefined: the top level of a DM. */
  readonly threadTs?: string;
}

/** Slack's message metadata: what a message says to apps (posted-answer.ts marks answers with it). */
export interface SlackMetadata {
  readonly event_type: string;
  readonly event_payload: Record<string, string>;
}

export interface Body {
  readonly text: string;
  readonly blocks?: readonly (types.KnownBlock | types.Block)[];
  /** Answers and traces: a link in them shows no preview. */
  readonly unfurl?: false;
  readonly metadata?: SlackMetadata;
}

export interface SlackPosts {
  /** The posted message's ts; undefined when Slack did not take it. `retry` false: tried once. */
  post(where: Where, body: Body, failure: Failure, retry?: boolean): Promise<string | undefined>;
  /** Only members of the channel can be shown one. `link`: a link button under the note (link-button.ts). */
  whisper(where: Where, user: string, text: string, link?: NoteLink): Promise<boolean>;
  directMessage(user: string, text: string, link?: NoteLink): Promise<boolean>;
  /**
   * As Slack mrkdwn, neutralised, in parts below Slack's message size, then a line naming the guard that fired. The
   * first part's ts; the first part carries `metadata` (posted-answer.ts).
   */
  answer(where: Where, answer: string, stop: GuardStop | undefined, metadata: SlackMetadata): Promise<string | undefined>;
  /** The grey line naming the guard that stopped a run, below its answer. */
  guardLine(where: Where, stop: GuardStop): Promise<void>;
}

/** The guard's sentence as a context block (grey, small), neutralised. */
export function guardLineBlock(stop: GuardStop) {
  const line = escapeSlackText(neutraliseMentions(stop.sentence));
  return { text: line, block: { type: "context" as const, elements: [{ type: "mrkdwn" as const, text: `:warning: ${line}` }] } };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const threadOf = (where: Where) => (where.threadTs === undefined ? {} : { thread_ts: where.threadTs });
/** A note's link as blocks, with its text kept for notifications and clients without blocks. */
const linkBlocks = (link: NoteLink | undefined) => {
  const blocks = link && linkNoteBlocks(link);
  return blocks ? { blocks } : {};
};

export function createSlackPosts(client: webApi.WebClient, logger: Logger): SlackPosts {
  async function post(where: Where, body: Body, failure: Failure, retry = true): Promise<string | undefined> {
    const { text, blocks, unfurl, metadata } = body;
    const message = {
      channel: where.channel,
      ...threadOf(where),
      text,
      ...(blocks ? { blocks: [...blocks] } : {}),
      ...(metadata ? { metadata } : {}),
    };
    const request = unfurl === false ? { ...message, unfurl_links: false, unfurl_media: false } : message;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const posted = await client.chat.postMessage(request);
        return typeof posted.ts === "string" ? posted.ts : undefined;
      } catch (error) {
        const code = slackErrorCode(error);
        const delay = retry ? RETRY_DELAYS_MS[attempt] : undefined;
        if (delay === undefined || (code !== undefined && !TRANSIENT_ERRORS.has(code))) {
          const fields = { err: error, channel: where.channel, ...failure.fields };
          logger[failure.level](fields, `${failure.message} (${describeSlackError(error)})`);
          return undefined;
        }
        await sleep(delay);
      }
    }
  }

  async function guardLine(where: Where, stop: GuardStop): Promise<void> {
    const { text, block } = guardLineBlock(stop);
    await post(where, { text, blocks: [block] }, { level: "error", message: "could not post the guard line", fields: { ...stop } });
  }

  return {
    post,
    whisper: (where, user, text, link) =>
      attempt(logger, { level: "info", message: "Slack refused an ephemeral message", fields: { user } }, () =>
        client.chat.postEphemeral({ channel: where.channel, user, text, ...linkBlocks(link), ...threadOf(where) }),
      ),
    async directMessage(user, text, link) {
      const failure: Failure = { level: "info", message: "Slack refused a direct message", fields: { user } };
      // A link is the person's to open: Slack does not fetch it for a preview.
      const body: Body = link ? { text, ...linkBlocks(link), unfurl: false } : { text };
      return (await post({ channel: user }, body, failure, false)) !== undefined;
    },
    async answer(where, answer, stop, metadata) {
      const split = splitText(toSlackMrkdwn(answer), MESSAGE_MAX_CHARS);
      const failure: Failure = { level: "error", message: "could not post the answer; it is in this log line", fields: { answer } };
      let first: string | undefined;
      for (const part of split.length > 0 ? split : [EMPTY_ANSWER]) {
        const ts = await post(where, { text: part, unfurl: false, ...(first === undefined ? { metadata } : {}) }, failure);
        if (ts === undefined) return undefined;
        first ??= ts;
      }
      if (stop) await guardLine(where, stop);
      return first;
    },
    guardLine,
  };
}
