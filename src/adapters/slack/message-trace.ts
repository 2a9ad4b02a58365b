// The fallback step trace, where streaming is not available (or Slack ended the stream): a
// message in the thread, posted once and then edited with chat.update, at most once per
// interval. A trace that outgrows one message continues in the next one in the same thread;
// earlier pages are only edited when their text changes. Rate limits are honoured by the
// client (it waits out Retry-After); edits shown meanwhile are coalesced.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { splitText } from "../split-text.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { codeBlock } from "./slack-text.js";
import { createThrottledWriter } from "../throttled-writer.js";

const TRACE_EDIT_INTERVAL_MS = 1_000;
/** Below Slack's 4,000 characters, with room for the heading and the code fence. */
const TRACE_PAGE_CHARS = 3_000;
const CONTINUED = "(trace continued)";

export interface MessageTrace {
  /** Plain text (the model's words included); neutralised and shown verbatim. */
  show(heading: string, trace: string): void;
  /** Waits until the last text shown is written. Never throws. */
  flush(): Promise<void>;
}

/** Pure: the messages one trace takes, each within Slack's message size. */
export function tracePages(heading: string, trace: string): string[] {
  const parts = splitText(neutraliseMentions(trace), TRACE_PAGE_CHARS);
  if (parts.length === 0) return [heading];
  return parts.map((part, index) => `${index === 0 ? heading : CONTINUED}\n${codeBlock(part)}`);
}

export function createMessageTrace(
  client: webApi.WebClient,
  target: { readonly channel: string; readonly threadTs: string },
  logger: Logger,
): MessageTrace {
  const posted: Array<{ ts: string; text: string }> = [];
  const writer = createThrottledWriter<readonly string[]>(
    async (pages) => {
      for (const [index, text] of pages.entries()) {
        const page = posted[index];
        if (page === undefined) {
          const response = await client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, text, unfurl_links: false, unfurl_media: false });
          if (typeof response.ts !== "string") return;
          posted.push({ ts: response.ts, text });
        } else if (page.text !== text) {
          await client.chat.update({ channel: target.channel, ts: page.ts, text });
          page.text = text;
        }
      }
    },
    {
      minIntervalMs: TRACE_EDIT_INTERVAL_MS,
      onError: (error) => logger.warn({ err: error, channel: target.channel }, "could not write the trace message"),
    },
  );
  return {
    show: (heading, trace) => writer.push(tracePages(heading, trace)),
    flush: () => writer.flush(),
  };
}
