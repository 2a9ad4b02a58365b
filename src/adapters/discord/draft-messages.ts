// What the model writes in a run, in Discord's reply as it comes: the reply's main message shows
// the text (the model's words before each tool call, then the answer), with the progress line
// under it while the run works (where it fits); past 2,000 characters it goes on in follow-up messages, cut
// where splitText cuts (never inside a code block: one is closed and reopened), each part left
// alone once the next began (growing-split.ts). Every message is edited only when its content
// changed, at the core's pace: at most once per interval. The answer completes it, 👍 / 👎 on
// its last message.
import type { Draft } from "../core/answer-draft.js";
import { grow, UNSPLIT, type GrowingSplit } from "../core/growing-split.js";
import type { ButtonRow } from "./buttons.js";
import type { OutgoingMessage, SentMessage } from "./channel-api.js";
import { MAX_MESSAGE_CHARS, truncate } from "./messages.js";
import type { ReplySurface } from "./reply-surface.js";

/** Room for the line that names the requester when the reply goes by channel messages. */
const MENTION_ROOM = 30;
/** The progress line under the text while the run works, where it fits. */
const FOOTER_CHARS = 240;
const PART_CHARS = MAX_MESSAGE_CHARS - MENTION_ROOM;
/** What a message says once the text it held was written over and now fits in fewer messages. */
const WRITTEN_OVER = "(this part was rewritten above)";

export interface DraftMessages {
  /**
   * Shows the draft's text with `footer` under it and `stop` on the main message; false (and nothing shown)
   * while no text has shown: the reply is the progress alone.
   */
  show(draft: Draft, footer: string, stop: readonly ButtonRow[]): Promise<boolean>;
  /** The answer after the text that showed: the main message, or undefined when no text showed (the caller posts it). */
  answer(draft: Draft, answer: string, votes: readonly ButtonRow[]): Promise<SentMessage | undefined>;
}

/** The text of the segments that show, each a paragraph; the answer's segment replaced by `answer` when given. */
function textOf(draft: Draft, answer?: string): string {
  const segments = draft.segments.filter((segment) => segment.sealed || answer === undefined).map((segment) => segment.text.trim());
  return [...segments, ...(answer === undefined ? [] : [answer])].filter((text) => text !== "").join("\n\n");
}

export function createDraftMessages(surface: ReplySurface): DraftMessages {
  /** The main message first; what each shows now. */
  const messages: Array<{ sent: SentMessage; shown: string }> = [];
  let split: GrowingSplit = UNSPLIT;

  async function put(index: number, message: OutgoingMessage): Promise<void> {
    const shown = JSON.stringify(message);
    const current = messages[index];
    if (current?.shown === shown) return;
    const sent =
      index === 0 ? await surface.setMain(message) : current ? await surface.edit(current.sent, message) : await surface.post(message);
    messages[index] = { sent, shown };
  }

  async function render(text: string, limit: number, messageOf: (part: string, index: number, last: boolean) => OutgoingMessage) {
    const grown = grow(split, text, limit) ?? grow(UNSPLIT, text, limit)!;
    split = grown.split;
    const { parts } = grown;
    for (const [index, part] of parts.entries()) await put(index, messageOf(part, index, index === parts.length - 1));
    for (let index = parts.length; index < messages.length; index++) await put(index, { content: WRITTEN_OVER, components: [] });
  }

  return {
    async show(draft, footer, stop) {
      const text = textOf(draft);
      if (text === "" && messages.length === 0) return false;
      const line = truncate(footer, FOOTER_CHARS);
      // The text itself shows the run at work: a full message goes without the line.
      const withLine = (part: string) => (`${part}\n\n${line}`.length <= PART_CHARS ? `${part}\n\n${line}` : part);
      await render(text === "" ? line : text, PART_CHARS, (part, index, last) => ({
        content: last && text !== "" ? withLine(part) : part,
        ...(index === 0 ? { components: stop } : {}),
      }));
      return true;
    },
    async answer(draft, answer, votes) {
      if (messages.length === 0) return undefined;
      await render(textOf(draft, answer), PART_CHARS, (part, index, last) => ({
        content: part,
        ...(last ? { components: votes } : index === 0 ? { components: [] } : {}),
      }));
      return messages[0]?.sent;
    },
  };
}
