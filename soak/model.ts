// The soak's model, behind the fake OpenAI server: it finds the message it is asked about (the
// highest `soak m<n>` among the user messages: history and thread context only hold earlier
// ones), counts the tool-call replies it already gave for it, and gives the next planned one,
// with a fresh call id each time as a real model does. Then it answers `ANSWER m<n> <kind>`.
// A request without tools is a guard's summary call. A planned tool the bot did not offer is
// answered `missing-tools`, which the checker reports. Pure but for the call-id counter.
import { textReply, toolCallReply, type FakeResponse, type RecordedRequest } from "../test/support/fake-openai-server.js";
import { planIn, plannedSteps, type Plan } from "./plans.js";

const TAG = /soak m(\d+)\b/g;

interface RequestMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: unknown[];
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part) => (typeof part === "object" && part !== null ? String((part as { text?: unknown }).text ?? "") : "")).join(" ")
      : "";

const tagsIn = (text: string): number[] => [...text.matchAll(TAG)].map((match) => Number(match[1]));

/** The message asked about and the index of the last user message naming it. */
function askedAbout(messages: readonly RequestMessage[]): { n: number; at: number } | undefined {
  let best: { n: number; at: number } | undefined;
  messages.forEach((message, at) => {
    if (message.role !== "user") return;
    for (const n of tagsIn(textOf(message.content))) if (!best || n > best.n || (n === best.n && at > best.at)) best = { n, at };
  });
  return best;
}

export interface ModelTurn {
  /** Seconds on the soak's clock. */
  readonly at: number;
  readonly n: number | undefined;
  /** Tool-call replies already given for the message. */
  readonly done: number;
  readonly reply: string;
}

export interface SoakModel {
  reply(request: RecordedRequest): FakeResponse;
  /** Every reply given, in order (for reading a failure). */
  readonly journal: ModelTurn[];
}

/** What the tools answered, in short: the final answer carries it, so a failure report shows why a write did not happen. */
function resultsIn(messages: readonly RequestMessage[]): string {
  // Other messages' tags in a result (a channel read) must not look like this answer's.
  const results = messages
    .filter((message) => message.role === "tool")
    .map((message) =>
      textOf(message.content)
        .replace(/\b(soak m|ANSWER m)/g, "~")
        .slice(0, 70),
    );
  return results.length === 0 ? "" : ` (tools said: ${results.map((result) => `"${result}"`).join("; ")})`;
}

/** `channelOf(n)`: the channel message n was sent in (its conversation's); `clock()`: seconds on the soak's clock. */
export function createSoakModel(seed: number, channelOf: (n: number) => string | undefined, clock: () => number): SoakModel {
  let calls = 0;
  const journal: ModelTurn[] = [];
  const given = (n: number | undefined, done: number, response: FakeResponse, reply: string): FakeResponse => {
    journal.push({ at: clock(), n, done, reply });
    return response;
  };
  return {
    journal,
    reply(request) {
      const messages = (request.body?.messages ?? []) as RequestMessage[];
      const asked = askedAbout(messages);
      if (!asked) return given(undefined, 0, textReply("ANSWER unknown: no soak message in the request"), "unknown");
      const { n } = asked;
      const plan: Plan = planIn(seed, n, channelOf(n));
      const delayed = (response: FakeResponse): FakeResponse => ({ ...response, delayMs: plan.modelDelayMs });
      const offered = ((request.body?.tools ?? []) as Array<{ function?: { name?: string } }>).map((tool) => tool.function?.name);
      if (offered.length === 0) return given(n, 0, delayed(textReply(`ANSWER m${n} summary`)), "summary");
      const done = messages
        .slice(asked.at + 1)
        .filter((message) => message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0).length;
      const steps = plannedSteps(plan.kind, n, channelOf(n) ?? "C0SOAK1");
      const step = steps[done];
      if (!step) return given(n, done, delayed(textReply(`ANSWER m${n} ${plan.kind}${resultsIn(messages.slice(asked.at + 1))}`)), "answer");
      const missing = step.filter((call) => !offered.includes(call.name)).map((call) => call.name);
      if (missing.length > 0) return given(n, done, delayed(textReply(`ANSWER m${n} missing-tools ${missing.join(",")}`)), "missing-tools");
      const planned = step.map((call) => ({ name: call.name, args: call.args, id: `call_${n}_${done}_${++calls}` }));
      return given(n, done, delayed(toolCallReply(planned)), planned.map((call) => `${call.name} as ${call.id}`).join(", "));
    },
  };
}
