// A run view over the real Slack surface's display (the real WebClient against the fake Slack),
// as the core builds one for a run in a Slack thread: tests and benches feed it a run's events
// directly and read what the person sees in the fake.
import { createRunView, type RunView } from "../../src/adapters/core/run-view.js";
import type { RunDisplay } from "../../src/adapters/core/surface.js";
import { createUnfinishedMessages } from "../../src/adapters/core/unfinished-messages.js";
import { createSlackSurface } from "../../src/adapters/slack/slack-adapter.js";
import type { MessageRef } from "../../src/adapters/slack/slack-refs.js";
import type { StreamLimits } from "../../src/adapters/slack/stream-trace.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger, type Logger } from "../../src/logger.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { FakeSlack } from "./fake-slack.js";
import { SIGNING_SECRET } from "./fake-slack-requests.js";
import { mapStore } from "./map-store.js";
import { slackAsked } from "./slack-origins.js";

export const VIEW_CHANNEL = "C0GENERAL";
export const VIEW_THREAD = "1700007000.000100";

export interface SlackViewOptions {
  readonly limits?: StreamLimits;
  /** Where the display's open messages are kept (a new view on the same store is a process taking the run over). */
  readonly store?: KeyValueStore;
  readonly logger?: Logger;
}

/** A run view for a question asked by U0ALICE in VIEW_THREAD, and its display. */
export function slackRunView(fake: FakeSlack, options: SlackViewOptions = {}): { view: RunView; display: RunDisplay<MessageRef> } {
  const logger = options.logger ?? silentLogger;
  const config = loadConfig({ SLACK_BOT_TOKEN: "xoxb-test", SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: fake.apiUrl, PORT: "0" });
  const surface = createSlackSurface({
    config: config.slack!,
    logger,
    counter: TokenCounter.forModel(config.model.name),
    streamLimits: options.limits ?? { maxAgeMs: 4 * 60_000, maxChars: 9_000, intervalMs: 50 },
  });
  const display = surface.display!({ origin: slackAsked("U0ALICE", VIEW_CHANNEL, { ts: VIEW_THREAD }), question: "what time is it?" });
  const view = createRunView(display, {
    logger,
    refs: { remember: async () => {}, find: async () => undefined },
    deciders: { users: [], roles: [] },
    question: "what time is it?",
    unfinished: createUnfinishedMessages(options.store ?? mapStore(), logger, "slack"),
  });
  return { view, display };
}
