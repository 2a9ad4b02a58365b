// How Slack delivers to a bot process: signed POSTs that must be answered within 3 s, or Slack
// counts them as not delivered (and retries events with X-Slack-Retry-Num). The outcome is
// data: an HTTP status, no answer in time, or no connection (the process is gone).
import { sign } from "../test/support/fake-slack-requests.js";

const ACK_WINDOW_MS = 3_000;

export type Delivery =
  | { readonly kind: "answered"; readonly status: number }
  | { readonly kind: "no_answer" }
  | { readonly kind: "no_connection"; readonly reason: string };

export interface Retry {
  readonly num: number;
  readonly reason: "http_timeout" | "http_error" | "connection_failed";
}

async function signedPost(url: string, body: string, contentType: string, retry?: Retry): Promise<Delivery> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    "Content-Type": contentType,
    "X-Slack-Request-Timestamp": String(timestamp),
    "X-Slack-Signature": sign(body, timestamp),
  };
  if (retry) {
    headers["X-Slack-Retry-Num"] = String(retry.num);
    headers["X-Slack-Retry-Reason"] = retry.reason;
  }
  try {
    const response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(ACK_WINDOW_MS) });
    await response.arrayBuffer();
    return { kind: "answered", status: response.status };
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return { kind: "no_answer" };
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return { kind: "no_connection", reason: cause };
  }
}

export function deliverEvent(eventsUrl: string, payload: Record<string, unknown>, retry?: Retry): Promise<Delivery> {
  return signedPost(eventsUrl, JSON.stringify(payload), "application/json", retry);
}

export function deliverClick(eventsUrl: string, payload: Record<string, unknown>): Promise<Delivery> {
  return signedPost(eventsUrl, new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), "application/x-www-form-urlencoded");
}

export const acked = (delivery: Delivery): boolean => delivery.kind === "answered" && delivery.status === 200;
