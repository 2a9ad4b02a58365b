// Prior conversation for benchmarks: alternating user / assistant messages of about 200
// characters. Every call builds new message objects and new strings with the same text, as a
// process that loads the history from the store would, so only the content cache can help.
import type { ChatMessage } from "../../src/contracts/types.js";

const FILLER =
  "We looked at the deployment logs, the error budget for the week and the open incidents; the queue " +
  "latency stayed under the limit, but two retries hit the upstream timeout and one cron job ran twice. ";

export function priorHistory(size: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let index = 0; index < size; index++) {
    const text = `#${index} ${FILLER}`.slice(0, 200);
    messages.push(index % 2 === 0 ? { role: "user", content: text } : { role: "assistant", content: text });
  }
  return messages;
}

/** Deterministic text of about `chars` characters from a seeded generator, different for every seed. */
export function observationText(chars: number, seed: number): string {
  const words = [
    "status",
    "region",
    "eu-west-1",
    "latency",
    "p99",
    "ms",
    "error",
    "count",
    "queue",
    "depth",
    "retry",
    "user",
    "id",
    "order",
    "total",
    "EUR",
    "ok",
    "failed",
    "timestamp",
    "2025-03-14T09:26:53Z",
  ];
  let state = seed * 2654435761 + 1;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state;
  };
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = next() % 5 === 0 ? String(next() % 100_000) : words[next() % words.length]!;
    const piece = next() % 9 === 0 ? `${word}\n` : `${word} `;
    parts.push(piece);
    length += piece.length;
  }
  return parts.join("").slice(0, chars);
}
