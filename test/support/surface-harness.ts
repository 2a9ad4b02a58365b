// A surface under the real core, for tests that build their own service: governance over given
// settings (open by default), the surface attached as app.ts attaches it. `stop` stops taking
// events and then closes the platform client, as a shutdown does once the runs are done.
import { approversFrom } from "../../src/governance/authority.js";
import { createGovernance } from "../../src/governance/governance.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import type { Config } from "../../src/config.js";
import type { Logger } from "../../src/logger.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import type { AgentService } from "../../src/runs/api/agent-service.js";
import { attach } from "../../src/adapters/core/attach.js";
import type { ChatSurface } from "../../src/adapters/core/surface.js";

export interface TestAdapter {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function underCore<C, R>(
  surface: ChatSurface<C, R>,
  deps: {
    readonly service: AgentService;
    readonly store: KeyValueStore;
    readonly logger: Logger;
    readonly settings?: Settings;
    readonly config?: Pick<Config, "slack" | "discord">;
  },
): TestAdapter {
  const governance = createGovernance({
    source: fixedSettings(deps.settings),
    store: deps.store,
    logger: deps.logger,
    model: "test",
    maxSteps: 10,
    approvers: deps.config ? approversFrom(deps.config) : {},
  });
  const attached = attach(surface, { service: deps.service, governance, store: deps.store, logger: deps.logger });
  return {
    name: surface.name,
    start: () => attached.start(),
    async stop() {
      await attached.stopIntake(8_000);
      await attached.close();
    },
  };
}
