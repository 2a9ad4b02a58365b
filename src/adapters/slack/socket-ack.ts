// Socket Mode has no processBeforeResponse: Bolt acks an Events API envelope before its
// listeners run, so a process that dies right after would lose a message Slack never sends
// again. This takes over the receiver's dispatch and sends an event's ack only once the
// listeners (which record and queue the message) are done; other envelopes ack as Bolt does.
import type { App, ReceiverEvent, SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { isNotRecorded } from "./untaken-requests.js";

interface SocketEnvelope {
  readonly type: string;
  readonly body: ReceiverEvent["body"];
  readonly retry_num?: number;
  readonly retry_reason?: string;
  ack(response?: Record<string, unknown>): Promise<void>;
}

/** Call once, before start(). The ack is sent whatever the listeners did, except for a message that was not recorded: Slack delivers that again. */
export function ackEventsAfterListeners(receiver: SocketModeReceiver, app: App, logger: Logger): void {
  receiver.client.removeAllListeners("slack_event");
  receiver.client.on("slack_event", async (envelope: SocketEnvelope) => {
    const deferred = envelope.type === "events_api";
    let response: Record<string, unknown> | undefined;
    const ack = deferred
      ? async (body?: Record<string, unknown>) => {
          response = body;
        }
      : (body?: Record<string, unknown>) => envelope.ack(body);
    try {
      await app.processEvent({
        body: envelope.body,
        ack: ack as ReceiverEvent["ack"],
        ...(envelope.retry_num !== undefined ? { retryNum: envelope.retry_num } : {}),
        ...(envelope.retry_reason !== undefined ? { retryReason: envelope.retry_reason } : {}),
      });
    } catch (error) {
      if (deferred && isNotRecorded(error)) {
        logger.warn("a Slack event was not recorded; not acknowledged, so that Slack delivers it again");
        return;
      }
      logger.error({ err: error }, "Slack event handling failed");
    }
    if (deferred)
      await envelope.ack(response).catch((error: unknown) => logger.warn({ err: error }, "could not acknowledge a Socket Mode event"));
  });
}
