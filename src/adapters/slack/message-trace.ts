// The fallback step trace, where streaming is not available: one message in the thread,
// posted once and then edited with chat.update, at most once per interval. Rate limits are
// honoured by the client (it waits out Retry-After); edits shown meanwhile are coalesced.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { codeBlock } from "./slack-text.js";
import { createThrottledWriter } from "../throttled-writer.js";

const TRACE_EDIT_INTERVAL_MS = 1_000;
const TRACE_TEXT_MAX = 3_900;

export interface MessageTrace {
  /** Plain text (the model's words included); neutralised and shown verbatim. */
  show(heading: string, trace: string): void;
  /** Waits until the last text shown is written. Never throws. */
  flush(): Promise<void>;
}

function traceText(heading: string, trace: string): string {
  const text = `${heading}\n${codeBlock(neutraliseMentions(trace))}`;
  return text.length <= TRACE_TEXT_MAX ? text : `${text.slice(0, TRACE_TEXT_MAX - 4)}…\`\`\``;
}

export function createMessageTrace(
  client: webApi.WebClient,
  target: { readonly channel: string; readonly threadTs: string },
  logger: Logger,
): MessageTrace {
  let ts: string | undefined;
  const writer = createThrottledWriter<string>(
    async (text) => {
      if (ts === undefined) {
        const posted = await client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, text, unfurl_links: false, unfurl_media: false });
        ts = typeof posted.ts === "string" ? posted.ts : undefined;
      } else {
        await client.chat.update({ channel: target.channel, ts, text });
      }
    },
    {
      minIntervalMs: TRACE_EDIT_INTERVAL_MS,
      onError: (error) => logger.warn({ err: error, channel: target.channel }, "could not write the trace message"),
    },
  );
  return {
    show: (heading, trace) => writer.push(traceText(heading, trace)),
    flush: () => writer.flush(),
  };
}
