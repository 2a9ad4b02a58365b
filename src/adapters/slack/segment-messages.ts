// One segment of what the model writes (an aside before a tool call, or the answer) as Slack
// messages in the run's thread. It streams (chat.startStream / appendStream / stopStream through
// the client's ChatStreamer), each append what the text added since the last; a message that
// fills up or nears Slack's stream time is stopped (a code block closed, reopened in the next)
// and the text goes on in a new streamed message. Where Slack refuses to stream (a workspace
// without the feature, a stream it ended: message_not_in_streaming_state, a text written over)
// the segment's messages are taken over and edited (chat.update, at the core's pace: at most
// once per interval), more posted as it grows; where that fails too, nothing more shows until
// the end, when what showed is removed and the caller posts the text whole.
import type { types, webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { grow, UNSPLIT, type GrowingSplit } from "../core/growing-split.js";
import { fenceAfter, fenceCloser, fenceOpener, NO_FENCE, type FenceState } from "../core/split-text.js";
import type { UnfinishedMessage } from "../core/unfinished-messages.js";
import { describeSlackError, slackErrorCode } from "./slack-api.js";
import type { SlackMetadata, Where } from "./slack-posts.js";
import { MESSAGE_MAX_CHARS, neutraliseMentions, toSlackMrkdwn } from "./slack-text.js";
import { chunkChars, streamable, streamCut } from "./streamed-text.js";
import type { StreamLimits } from "./stream-trace.js";

/** Room kept in a full message for the fence that closes it and a few word joiners from neutralising. */
const CLOSING_ROOM = chunkChars(fenceCloser({ open: true, language: "" })) + 32;

export interface SegmentDeps {
  readonly client: webApi.WebClient;
  readonly logger: Logger;
  readonly where: Where;
  /** Who the stream is for (Slack asks outside DMs); undefined where no stream can start (no thread): the segment is edited. */
  readonly recipient: { readonly team: string; readonly user: string } | undefined;
  readonly limits: StreamLimits;
  readonly now: () => number;
  /** Shared by the run's segments: a start Slack refused is not tried again in this run. */
  readonly refused: { streaming: boolean };
}

/** What the answer's last message ends with: blocks at its bottom (the guard line, 👍 / 👎) and the run's metadata. */
export interface SegmentEnd {
  readonly blocks: readonly (types.KnownBlock | types.Block)[];
  readonly metadata: SlackMetadata;
}

export interface SegmentMessages {
  /** Shows the segment's text so far (grown at its end, or written over). Never throws. */
  show(text: string): Promise<void>;
  /**
   * The text is final: shows whole, and the messages end, the last with `end`. Its first message's ts and whether `end`
   * went with it (the blocks only go with a stream); undefined when it could not show (the caller posts it whole). Never throws.
   */
  close(text: string, end?: SegmentEnd): Promise<{ readonly first: string; readonly ended: boolean } | undefined>;
  /** Its messages still open. */
  unfinished(): UnfinishedMessage[];
}

interface StreamedPart {
  readonly streamer: webApi.ChatStreamer;
  /** Where in the segment's text this message's text starts, and the code block open there. */
  readonly from: number;
  readonly fence: FenceState;
  readonly startedAt: number;
  /** JSON characters its chunks take. */
  chars: number;
  open: boolean;
}

/** Thrown inside when the text no longer starts with what streamed (a try that failed and started over): the messages are edited instead. */
class WrittenOver extends Error {
  constructor() {
    super("the model started its text over, and a stream only grows");
  }
}

export function createSegmentMessages(deps: SegmentDeps): SegmentMessages {
  const { client, logger, where, limits } = deps;
  let mode: "stream" | "edit" | "whole" = deps.recipient && where.threadTs && !deps.refused.streaming ? "stream" : "edit";
  /** The segment's text the streams hold. */
  let streamed = "";
  const parts: StreamedPart[] = [];
  /** Edited messages in order, with the text each shows. */
  const edited: Array<{ readonly ts: string; shown: string }> = [];
  let split: GrowingSplit = UNSPLIT;
  let closed = false;

  const current = () => parts.at(-1);
  const openPart = (): StreamedPart => {
    const part: StreamedPart = {
      streamer: client.chatStream({
        channel: where.channel,
        thread_ts: where.threadTs!,
        recipient_team_id: deps.recipient!.team,
        recipient_user_id: deps.recipient!.user,
        // The core already paces what it shows: every append is sent.
        buffer_size: 1,
      }),
      from: streamed.length,
      fence: fenceAfter(streamed, NO_FENCE),
      startedAt: deps.now(),
      chars: 0,
      open: true,
    };
    parts.push(part);
    return part;
  };

  async function append(part: StreamedPart, text: string): Promise<void> {
    const shown = neutraliseMentions(text);
    try {
      await part.streamer.append({ markdown_text: shown });
    } catch (error) {
      // Refused at its start: this run streams no more.
      if (part.streamer.ts === undefined) deps.refused.streaming = true;
      throw error;
    }
    part.chars += chunkChars(shown);
  }

  /** Stops a message's stream, closing a code block left open, with `end` on it when it is the last. */
  async function stopPart(part: StreamedPart, end?: SegmentEnd): Promise<void> {
    const closer = fenceCloser(fenceAfter(streamed, NO_FENCE));
    await part.streamer.stop({
      ...(closer ? { markdown_text: closer } : {}),
      ...(end ? { blocks: [...end.blocks], metadata: end.metadata } : {}),
    });
    part.open = false;
  }

  const tooOld = (part: StreamedPart) => part.chars > 0 && deps.now() - part.startedAt + limits.intervalMs >= limits.maxAgeMs;

  /** Streams what `target` adds, moving on to a new message whenever one is full or old. */
  async function streamTo(target: string): Promise<void> {
    if (!target.startsWith(streamed)) throw new WrittenOver();
    let rest = target.slice(streamed.length);
    while (rest !== "") {
      const part = current()?.open ? current()! : openPart();
      if (tooOld(part)) {
        await stopPart(part);
        continue;
      }
      const opener = part.chars === 0 ? fenceOpener(part.fence) : "";
      const cut = streamCut(opener + rest, limits.maxChars - part.chars - CLOSING_ROOM) - opener.length;
      if (cut <= 0) {
        await stopPart(part);
        continue;
      }
      await append(part, opener + rest.slice(0, cut));
      streamed += rest.slice(0, cut);
      rest = rest.slice(cut);
      if (rest !== "") await stopPart(part);
    }
  }

  /** Streaming failed: every message of the segment is edited from now on (one Slack still streams is stopped first). */
  async function takeOver(error: unknown): Promise<void> {
    logger.info(
      { err: error, channel: where.channel },
      `streaming the model's text failed (${describeSlackError(error)}); it goes on as an edited message`,
    );
    mode = "edit";
    for (const part of parts) {
      const ts = part.streamer.ts;
      if (ts === undefined) continue;
      if (part.open) {
        part.open = false;
        try {
          await client.chat.stopStream({ channel: where.channel, ts });
        } catch (stopError) {
          if (slackErrorCode(stopError) !== "message_not_in_streaming_state") return giveUp(stopError);
        }
      }
      edited.push({ ts, shown: "" });
    }
  }

  function giveUp(error: unknown): void {
    mode = "whole";
    logger.warn(
      { err: error, channel: where.channel },
      `could not edit the model's text (${describeSlackError(error)}); it is posted at the end`,
    );
  }

  /** Shows `text` over the edited messages, posting one more for each part it grew by. */
  async function editTo(text: string): Promise<void> {
    const grown = grow(split, text, MESSAGE_MAX_CHARS) ?? grow(UNSPLIT, text, MESSAGE_MAX_CHARS)!;
    split = grown.split;
    for (const [index, part] of grown.parts.entries()) {
      const shown = toSlackMrkdwn(part);
      const message = edited[index];
      try {
        if (!message) {
          const posted = await client.chat.postMessage({
            channel: where.channel,
            ...(where.threadTs ? { thread_ts: where.threadTs } : {}),
            text: shown,
            unfurl_links: false,
            unfurl_media: false,
          });
          if (typeof posted.ts !== "string") throw new Error("Slack answered a post without its ts");
          edited.push({ ts: posted.ts, shown });
        } else if (message.shown !== shown) {
          await client.chat.update({ channel: where.channel, ts: message.ts, text: shown });
          message.shown = shown;
        }
      } catch (error) {
        return giveUp(error);
      }
    }
  }

  /** The text goes whole in one post instead: what showed of it goes, where Slack lets it. */
  async function removePartial(): Promise<undefined> {
    const shown = new Set([
      ...parts.flatMap((part) => (part.streamer.ts ? [part.streamer.ts] : [])),
      ...edited.map((message) => message.ts),
    ]);
    for (const ts of shown)
      await client.chat.delete({ channel: where.channel, ts }).catch((error: unknown) => {
        logger.info({ err: error, channel: where.channel }, "could not remove a partly shown text; the whole one follows it");
      });
    return undefined;
  }

  async function showNow(text: string, final: boolean): Promise<void> {
    if (mode === "stream") {
      try {
        return await streamTo(final ? text.trimEnd() : streamable(text));
      } catch (error) {
        await takeOver(error);
      }
    }
    if (mode === "edit") await editTo(text.trimEnd());
  }

  return {
    async show(text) {
      if (closed || text.trim() === "") return;
      await showNow(text, false);
    },
    async close(text, end) {
      closed = true;
      await showNow(text, true);
      if (mode === "stream") {
        const last = current();
        try {
          if (last?.open) await stopPart(last, end);
          const first = parts.find((part) => part.streamer.ts !== undefined)?.streamer.ts;
          return first === undefined ? undefined : { first, ended: end !== undefined };
        } catch (error) {
          await takeOver(error);
          await editTo(text.trimEnd());
        }
      }
      const first = edited[0];
      const last = edited.at(-1);
      if (mode !== "edit" || !first || !last) return removePartial();
      if (end) {
        try {
          await client.chat.update({ channel: where.channel, ts: last.ts, text: last.shown, metadata: end.metadata });
        } catch (error) {
          logger.warn({ err: error, channel: where.channel }, "could not mark the answer with its run; a takeover may post it again");
        }
      }
      return { first: first.ts, ended: false };
    },
    unfinished() {
      if (closed) return [];
      const streaming = parts.flatMap((part) =>
        part.open && part.streamer.ts ? [{ channel: where.channel, id: part.streamer.ts, kind: "text" as const, streaming: true }] : [],
      );
      const editing =
        mode === "edit"
          ? edited.map((message) => ({ channel: where.channel, id: message.ts, kind: "text" as const, streaming: false }))
          : [];
      return [...streaming, ...editing];
    },
  };
}
