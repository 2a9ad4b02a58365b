// The fallback step trace, where streaming is not available (or Slack ended the stream): a
// message in the thread, posted once and then edited with chat.update, at most once per
// interval. A trace that outgrows one message continues in the next one in the same thread;
// earlier pages are only edited when their text changes. Rate limits are honoured by the
// client (it waits out Retry-After); edits shown meanwhile are coalesced. While the run works
// the first page carries the run's Stop button; the last text shown without a run id removes it.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { splitText } from "../core/split-text.js";
import { codeBlock, neutraliseMentions } from "./slack-text.js";
import { createThrottledWriter } from "../core/throttled-writer.js";
import { stopButton } from "./slack-working.js";

const TRACE_EDIT_INTERVAL_MS = 1_000;
/** Below Slack's 4,000 characters, with room for the heading and the code fence. */
const TRACE_PAGE_CHARS = 3_000;
const CONTINUED = "(trace continued)";

export interface MessageTrace {
  /**
   * Plain text (the model's words included); neutralised and shown verbatim. With `stopRunId`
   * the first page carries that run's Stop button; without it the button goes.
   */
  show(heading: string, trace: string, stopRunId?: string): void;
  /** Waits until the last text shown is written. Never throws. */
  flush(): Promise<void>;
}

interface Shown {
  readonly pages: readonly string[];
  readonly stopRunId: string | undefined;
}

/**
 * Pure: the blocks of a page. A message with blocks shows them instead of its text, so the page
 * goes in a markdown block (12,000 characters, well above a page) above the button. An empty list
 * is what makes chat.update drop the blocks an earlier edit set.
 */
export function pageBlocks(text: string, stopRunId: string | undefined) {
  return stopRunId === undefined
    ? []
    : [
        { type: "markdown" as const, text },
        { type: "actions" as const, elements: [stopButton(stopRunId)] },
      ];
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
  const posted: Array<{ ts: string; text: string; stopRunId: string | undefined }> = [];
  const writer = createThrottledWriter<Shown>(
    async ({ pages, stopRunId: runId }) => {
      for (const [index, text] of pages.entries()) {
        const page = posted[index];
        const stopRunId = index === 0 ? runId : undefined;
        const blocks = pageBlocks(text, stopRunId);
        if (page === undefined) {
          const response = await client.chat.postMessage({
            channel: target.channel,
            thread_ts: target.threadTs,
            text,
            ...(blocks.length > 0 ? { blocks } : {}),
            unfurl_links: false,
            unfurl_media: false,
          });
          if (typeof response.ts !== "string") return;
          posted.push({ ts: response.ts, text, stopRunId });
        } else if (page.text !== text || page.stopRunId !== stopRunId) {
          await client.chat.update({
            channel: target.channel,
            ts: page.ts,
            text,
            ...(page.stopRunId === undefined && stopRunId === undefined ? {} : { blocks }),
          });
          page.text = text;
          page.stopRunId = stopRunId;
        }
      }
    },
    {
      minIntervalMs: TRACE_EDIT_INTERVAL_MS,
      onError: (error) => logger.warn({ err: error, channel: target.channel }, "could not write the trace message"),
    },
  );
  return {
    show: (heading, trace, stopRunId) => writer.push({ pages: tracePages(heading, trace), stopRunId }),
    flush: () => writer.flush(),
  };
}
