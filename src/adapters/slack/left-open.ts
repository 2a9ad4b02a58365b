// Ends Slack messages left looking unfinished: a stream is stopped (with a note at its end), and
// one Slack no longer streams (its stream timed out: an error pill) or one that was being edited
// is written over with the note, the only thing Slack lets a bot do with it. Used for what a
// process that died mid-run left open, and for a trace stream Slack ended.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { INTERRUPTED_ANSWER } from "../core/texts.js";
import type { UnfinishedMessage } from "../core/unfinished-messages.js";

/** What ends each kind of message: the model's text was answered again below; a trace went on elsewhere. */
export type EndNotes = Readonly<Record<UnfinishedMessage["kind"], string>>;

export const INTERRUPTED_NOTES: EndNotes = { text: `_${INTERRUPTED_ANSWER}_`, trace: "_(interrupted)_" };

/** Never throws: a message that can't be ended is logged. */
export async function endLeftOpen(
  client: webApi.WebClient,
  logger: Logger,
  left: readonly UnfinishedMessage[],
  notes: EndNotes,
): Promise<void> {
  const succeeded = (call: () => Promise<unknown>) =>
    call().then(
      () => true,
      () => false,
    );
  for (const { channel, id: ts, kind, streaming } of left) {
    const note = notes[kind];
    // A full message takes no note: it is stopped as it stands.
    if (streaming && (await succeeded(() => client.chat.stopStream({ channel, ts, markdown_text: `\n\n${note}` })))) continue;
    if (streaming && (await succeeded(() => client.chat.stopStream({ channel, ts })))) continue;
    try {
      await client.chat.update({ channel, ts, text: note });
    } catch (error) {
      logger.warn({ err: error, channel, ts }, "could not end a message left unfinished");
    }
  }
}
