// The tokens a run used, handed to the usage check (a daily limit) in portions: what was used
// since the last report. A check that throws is logged and ignored; its stop ends the run.
import type { LoopDeps } from "./loop-types.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { GuardStop, ModelReply, TaskOrigin, TokenUsage } from "../../contracts/types.js";
import { usageTokens } from "./run-context.js";

/**
 * A reply's tokens: what the server reported, else what it was sent (`sentTokens`) and wrote, by our
 * tokenizer. Limits, run records and /usage all read this one figure, so they never disagree.
 */
export function replyUsage(reply: ModelReply, sentTokens: number, counter: TokenCounter): TokenUsage {
  if (reply.usage) return reply.usage;
  const written = [reply.content ?? "", ...reply.toolCalls.map((call) => `${call.name}${call.arguments}`)].join("\n");
  return { promptTokens: sentTokens, completionTokens: counter.countText(written) };
}

export class UsageMeter {
  /** Model tokens used since the last report. */
  private unreported = 0;

  constructor(
    private readonly deps: Pick<LoopDeps, "usageCheck" | "logger">,
    private readonly run: { readonly runId: string; readonly origin: TaskOrigin },
  ) {}

  /** Whether anyone reads the usage: counting what a model wrote costs a few µs per step. */
  get wanted(): boolean {
    return this.deps.usageCheck !== undefined;
  }

  /** Whether report has anything to hand over; a step need not wait for a report that has nothing to do. */
  get due(): boolean {
    return this.deps.usageCheck !== undefined && this.unreported !== 0;
  }

  add(tokens: number): void {
    this.unreported += tokens;
  }

  /** A step's reply, with its usage as replyUsage gives it. */
  addReply(reply: ModelReply & { readonly usage: TokenUsage }): void {
    this.add(usageTokens(reply.usage));
  }

  /** Hands the tokens used since last time to the check; its stop, if any. */
  async report(): Promise<GuardStop | undefined> {
    const check = this.deps.usageCheck;
    if (!check || !this.due) return undefined;
    const tokens = this.unreported;
    this.unreported = 0;
    try {
      return await check(this.run, tokens);
    } catch (error) {
      this.deps.logger.warn({ runId: this.run.runId, err: error }, "the usage check threw; ignored");
      return undefined;
    }
  }
}
