// The fake Discord's REST log: every call it answered, waits for calls to come, and the
// scripted failures (a 429 with its delay…) it answers matching calls with instead.
import { EventEmitter } from "node:events";

export interface RecordedCall {
  readonly method: string;
  /** After `/api/v10`, without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: any;
  readonly status: number;
  readonly at: number;
}

export interface ScriptedFailure {
  readonly method: string;
  readonly path: RegExp;
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  /** Only requests whose body this accepts fail; default: any. */
  readonly when?: (body: any) => boolean;
}

export class CallLog {
  readonly calls: RecordedCall[] = [];
  private readonly failures: ScriptedFailure[] = [];
  private readonly events = new EventEmitter();

  record(call: RecordedCall): void {
    this.calls.push(call);
    this.events.emit("call", call);
  }

  failNext(failure: ScriptedFailure): void {
    this.failures.push(failure);
  }

  /** The scripted failure for this call, used up; undefined when none matches. */
  takeFailure(method: string, path: string, body: unknown): ScriptedFailure | undefined {
    const index = this.failures.findIndex(
      (failure) => failure.method === method && failure.path.test(path) && (failure.when?.(body) ?? true),
    );
    return index < 0 ? undefined : this.failures.splice(index, 1)[0];
  }

  callsTo(method: string, path: RegExp): RecordedCall[] {
    return this.calls.filter((call) => call.method === method && path.test(call.path));
  }

  /** Resolves with the first recorded call (past or future) that matches; rejects after `timeoutMs`. */
  waitForCall(
    method: string | readonly string[],
    path: RegExp,
    predicate: (call: RecordedCall) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<RecordedCall> {
    const methods = typeof method === "string" ? [method] : method;
    const matches = (call: RecordedCall) => methods.includes(call.method) && path.test(call.path) && predicate(call);
    const found = this.calls.find(matches);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off("call", listener);
        reject(
          new Error(
            `FakeDiscord: no ${methods.join("/")} ${path} within ${timeoutMs} ms; calls were:\n${this.calls.map((call) => `${call.method} ${call.path} ${call.status}`).join("\n")}`,
          ),
        );
      }, timeoutMs);
      const listener = (call: RecordedCall) => {
        if (!matches(call)) return;
        clearTimeout(timer);
        this.events.off("call", listener);
        resolve(call);
      };
      this.events.on("call", listener);
    });
  }
}
