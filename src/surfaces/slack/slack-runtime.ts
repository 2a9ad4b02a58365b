// What the Slack handlers share: the Web API client, the agent service, the store, the
// settings, and the adapter's bookkeeping (who the bot is, whether it still takes events).
import type { webApi } from "@slack/bolt";
import type { AgentService } from "../../runs/service.js";
import type { GovernanceCommands } from "../../governance/governance.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { Logger } from "../../logger.js";
import type { StreamLimits } from "./stream-limits.js";

export interface SlackRuntime {
  readonly client: webApi.WebClient;
  readonly service: AgentService;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly approvers: readonly string[];
  /** The settings file's admin checks and the `audit` / `settings` commands; absent: no settings file wiring. */
  readonly governance?: GovernanceCommands;
  readonly streamLimits: StreamLimits;
  readonly now: () => number;
  /** The bot's own user id (auth.test), once started. */
  botUserId(): string | undefined;
  /** False once stop() began: clicks are told to come back; a question Slack delivered is still recorded (it was acked, so no redelivery comes). */
  accepting(): boolean;
}
