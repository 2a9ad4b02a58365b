// The fake model the explorer's product tests run against: each request answered by what it
// asks, with usage reported, so runs, guard trips, summaries and fact extraction are scripted
// by the question alone.
import { textReply, toolCallReply, type FakeResponse, type RecordedRequest } from "./fake-openai-server.js";

export const STEP_USAGE = { prompt: 100, completion: 10, cached: 40 };
export const ANSWER_USAGE = { prompt: 50, completion: 5 };
export const SUMMARY_USAGE = { prompt: 30, completion: 6 };
export const FACT = "The team deploys on Tuesdays.";

type Message = { role: string; content: string | null };

/** loop → the same call until the repeat guard trips; add → one calculator call then "It is 5."; remember → a fact; else an answer naming the question. */
export function explorerModel(request: RecordedRequest): FakeResponse {
  const body = request.body as { messages: Message[]; tools?: unknown[]; response_format?: unknown };
  if (body.response_format) {
    const exchange = body.messages.at(-1)?.content ?? "";
    return textReply(JSON.stringify({ facts: exchange.includes("remember") ? [FACT] : [] }), { prompt: 20, completion: 4 });
  }
  if (!body.tools) return textReply("I was stopped before I could finish.", SUMMARY_USAGE);
  const question = [...body.messages].reverse().find((message) => message.role === "user")?.content ?? "";
  const toolResults = body.messages.filter((message) => message.role === "tool").length;
  if (question.includes("loop"))
    return toolCallReply([{ name: "calculator", args: { expression: "1+1" }, id: `loop_${toolResults}` }], STEP_USAGE);
  if (question.includes("add") && toolResults === 0)
    return toolCallReply([{ name: "calculator", args: { expression: "2+3" }, id: "add_1" }], STEP_USAGE);
  if (question.includes("add")) return textReply("It is 5.", ANSWER_USAGE);
  return textReply(`Answer to: ${question}`, ANSWER_USAGE);
}
