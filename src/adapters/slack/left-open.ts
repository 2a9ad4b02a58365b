// Ends Slack messages left looking unfinished: a stream is stopped (with a note at its end), and
// one Slack no longer streams (its stream timed out: an error pill) or one that was being edited
// is written over with the note, the only thing Slack lets a bot do with it. Used for what a
// process that died mid-run left open, and for a trace stream Slack ended. A stream the process
// started without learning (or recording) its id is looked for in its thread: after the thread's
// last answer, among the bot's messages, where only one still streaming takes a stop.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { INTERRUPTED_ANSWER } from "../core/texts.js";
import type { StreamThread, UnfinishedMessage } from "../core/unfinished-messages.js";
import { z } from "zod";
import { isPostedAnswer } from "./posted-answer.js";
import { readThread } from "./slack-api.js";

/** Pages of a thread read for a stream left without its id: a run's messages are among the thread's latest. */
const UNRECORDED_PAGES = 5;
/** The bot's latest messages tried at most: a run leaves a few (its text, its trace, the Stop button). */
const UNRECORDED_TRIES = 20;

/** What ends each kind of message: the model's text was answered again below; a trace went on elsewhere. */
export type EndNotes = Readonly<Record<UnfinishedMessage["kind"], string>>;

export const INTERRUPTED_NOTES: EndNotes = { text: `_${INTERRUPTED_ANSWER}_`, trace: "_(interrupted)_" };

const succeeded = (call: () => Promise<unknown>) =>
  call().then(
    () => true,
    () => false,
  );

/** Whether the stream took the stop; a full message takes no note, and is stopped as it stands. */
async function stopWithNote(client: webApi.WebClient, channel: string, ts: string, note: string): Promise<boolean> {
  return (
    (await succeeded(() => client.chat.stopStream({ channel, ts, markdown_text: `\n\n${note}` }))) ||
    (await succeeded(() => client.chat.stopStream({ channel, ts })))
  );
}

/** Never throws: a message that can't be ended is logged. */
export async function endLeftOpen(
  client: webApi.WebClient,
  logger: Logger,
  left: readonly UnfinishedMessage[],
  notes: EndNotes,
): Promise<void> {
  for (const { channel, id: ts, kind, streaming } of left) {
    if (streaming && (await stopWithNote(client, channel, ts, notes[kind]))) continue;
    try {
      await client.chat.update({ channel, ts, text: notes[kind] });
    } catch (error) {
      logger.warn({ err: error, channel, ts }, "could not end a message left unfinished");
    }
  }
}

/** What of a listed message (untrusted) tells a bot's message and an answer. */
const Listed = z.object({
  ts: z.string(),
  bot_id: z.string().optional(),
  metadata: z.object({ event_type: z.string().optional() }).optional(),
});

/** Pure: the bot's messages after the thread's last answer (what a run left comes after the answer before it), but `named`, oldest first. */
export function unansweredBotMessages(listing: readonly unknown[], named: ReadonlySet<string>): string[] {
  const messages = listing.flatMap((entry) => {
    const parsed = Listed.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
  const lastAnswer = messages.map(isPostedAnswer).lastIndexOf(true);
  return messages.slice(lastAnswer + 1).flatMap((message) => (message.bot_id !== undefined && !named.has(message.ts) ? [message.ts] : []));
}

/**
 * Stops, with `note`, the streams a process that died may have started in these threads without recording them (`named`:
 * the messages it did record, ended by endLeftOpen). Slack lists no stream as such, and stopping a message that is not
 * streaming is refused and changes nothing, so each of the bot's messages since the thread's last answer is tried. A
 * stream Slack already ended (after minutes, an error pill) can't be told from a finished message and stays. Never throws.
 */
export async function endUnrecordedStreams(
  client: webApi.WebClient,
  logger: Logger,
  threads: readonly StreamThread[],
  named: ReadonlySet<string>,
  note: string,
): Promise<void> {
  for (const { channel, thread } of threads) {
    try {
      const { messages, whole } = await readThread(client, { channel, ts: thread, metadata: true }, UNRECORDED_PAGES);
      if (!whole) {
        logger.warn({ channel, thread }, "a thread too long to look through for a stream left open; one may look unfinished");
        continue;
      }
      for (const ts of unansweredBotMessages(messages, named).slice(-UNRECORDED_TRIES))
        if (await stopWithNote(client, channel, ts, note))
          logger.info({ channel, ts }, "stopped a stream that a process that died had started without recording it");
    } catch (error) {
      logger.warn({ err: error, channel, thread }, "could not look for a stream left open in its thread; one may look unfinished");
    }
  }
}
