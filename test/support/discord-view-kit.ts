// A run view over the real Discord surface's display (discord.js's REST client against the fake
// Discord), for an /ask the fake dispatched and the test deferred as the adapter does: tests and
// benches feed it a run's events directly and read the reply's messages in the fake.
import { REST, Routes } from "discord.js";
import { createRunView, type RunView } from "../../src/adapters/core/run-view.js";
import type { ThrottledWriterOptions } from "../../src/adapters/core/throttled-writer.js";
import { createDiscordSurface } from "../../src/adapters/discord/discord-adapter.js";
import { encodeInteraction } from "../../src/adapters/discord/discord-place.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { discordAsked } from "./discord-origins.js";
import type { FakeDiscord, FakeUser } from "./fake-discord.js";

export interface DiscordView {
  readonly view: RunView;
  /** Where the reply's messages are edited: `<this>/@original` (the main message) and `<this>/<id>` (a follow-up). */
  readonly webhookMessages: string;
}

/** An /ask from `user` in the fake's general channel, deferred, and the run view that answers it. */
export async function discordRunView(
  fake: FakeDiscord,
  user: FakeUser,
  options: { readonly clock?: Pick<ThrottledWriterOptions<unknown>, "now" | "sleep">; readonly progressIntervalMs?: number } = {},
): Promise<DiscordView> {
  const config = loadConfig({
    DISCORD_TOKEN: fake.token,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    PORT: "0",
  });
  const surface = createDiscordSurface({
    config: config.discord!,
    logger: silentLogger,
    ...(options.progressIntervalMs === undefined ? {} : { progressIntervalMs: options.progressIntervalMs }),
  });
  const asked = fake.slashCommand("ask", user, { values: { question: "write me the long one" } });
  // What the adapter does within Discord's 3 s: the deferred public reply becomes @original.
  const rest = new REST({ api: fake.apiUrl });
  await rest.post(Routes.interactionCallback(asked.id, asked.token), { body: { type: 5 }, auth: false });
  const origin = discordAsked(
    { id: user.id, name: user.username },
    { guild: fake.guild.id, channel: fake.general.id, channelKind: "text", interaction: asked.id },
  );
  const reply = encodeInteraction({ application: fake.applicationId, token: asked.token, at: Date.now(), kind: "ask" });
  const display = surface.display!({ origin, question: "write me the long one", reply });
  const view = createRunView(display, {
    logger: silentLogger,
    refs: { remember: async () => {}, find: async () => undefined },
    deciders: { users: [], roles: [] },
    question: "write me the long one",
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { view, webhookMessages: `/webhooks/${fake.applicationId}/${asked.token}/messages` };
}
