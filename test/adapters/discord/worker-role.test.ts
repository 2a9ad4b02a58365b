// BOT_ROLE=worker on Discord: the adapter keeps its REST client (presenting runs, chat tools)
// but opens no gateway, so clicks, commands and mentions only reach ingress processes.
import { afterEach, describe, expect, it } from "vitest";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a Discord worker", () => {
  it("starts and stops without identifying on the gateway", async () => {
    harness = await startDiscordHarness({ script: [], adapter: { takeEvents: false } });
    expect(harness.fake.gateway.identifies).toHaveLength(0);
    expect(harness.fake.gateway.connected).toBe(0);
    await harness.adapter.stop();
    expect(harness.fake.gateway.identifies).toHaveLength(0);
  });

  it("an ingress (the default) identifies", async () => {
    harness = await startDiscordHarness({ script: [] });
    expect(harness.fake.gateway.identifies).toHaveLength(1);
  });
});
