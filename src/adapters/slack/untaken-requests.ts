// What Slack hears when the bot could not take a request. A message that could not be recorded
// (the store or the queue did not answer) is not acknowledged: HTTP mode answers 503 and Socket
// Mode sends no ack, so Slack delivers it again and the retry is answered; the person is told
// nothing (they would get "please try again" and then the answer too). A signed payload Bolt
// itself can't read (not of a shape Slack sends: Bolt throws before any listener) gets 400 at
// once, where Bolt's own handler answered 500 and then logged "not acknowledged within 3 seconds".
import type { ReceiverProcessEventErrorHandlerArgs } from "@slack/bolt";
import { IntakeUnavailableError } from "../../errors.js";
import type { Logger } from "../../logger.js";

/** Slack's first retry comes about a minute later; this says the same to anything else. */
const RETRY_AFTER_SECONDS = "60";

/** True when `error` (as Bolt hands it on, possibly one of several listeners' errors) says a message was not recorded. */
export function isNotRecorded(error: unknown): boolean {
  if (error instanceof IntakeUnavailableError) return true;
  const originals = (error as { originals?: unknown } | undefined)?.originals;
  return Array.isArray(originals) && originals.some((original) => original instanceof IntakeUnavailableError);
}

/** HTTPReceiver's processEventErrorHandler: runs when processEvent rejected. Resolves true: the request is answered (Bolt stops its 3 s timer). */
export function answerUntaken(logger: Logger): (args: ReceiverProcessEventErrorHandlerArgs) => Promise<boolean> {
  return async ({ error, response }) => {
    if (isNotRecorded(error)) logger.warn("a Slack event was not recorded; answered 503 so that Slack delivers it again");
    else logger.warn({ err: error }, "a signed Slack request Bolt could not read; answered 400");
    if (response.headersSent) return true;
    if (isNotRecorded(error)) response.writeHead(503, { "Retry-After": RETRY_AFTER_SECONDS }).end();
    else response.writeHead(400).end();
    return true;
  };
}
