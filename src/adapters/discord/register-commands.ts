// `npm run discord:register`: puts /ask and the core's commands on Discord, to one server
// (DISCORD_GUILD_ID: shows up at once) or globally (can take up to an hour to show up).
// Prints what it did; any failure is one line and exit code 1.
import { pathToFileURL } from "node:url";
import { DiscordAPIError, REST, Routes } from "discord.js";
import { z } from "zod";
import { loadConfig, type Config } from "../../config.js";
import { ConfigError } from "../../errors.js";
import { COMMANDS } from "./command-definitions.js";

export interface RegisterResult {
  readonly scope: { readonly kind: "guild"; readonly guildId: string } | { readonly kind: "global" };
  readonly commands: readonly string[];
}

const Registered = z.array(z.object({ name: z.string() }));

/** Replaces the application's commands with ours (PUT is idempotent: run it again any time). */
export async function registerCommands(config: NonNullable<Config["discord"]>): Promise<RegisterResult> {
  const rest = new REST(config.apiUrl ? { api: config.apiUrl } : {}).setToken(config.token);
  const route = config.guildId
    ? Routes.applicationGuildCommands(config.applicationId, config.guildId)
    : Routes.applicationCommands(config.applicationId);
  try {
    const registered = Registered.parse(await rest.put(route, { body: COMMANDS }));
    return {
      scope: config.guildId ? { kind: "guild", guildId: config.guildId } : { kind: "global" },
      commands: registered.map((command) => command.name),
    };
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
}

export function describeRegistration(result: RegisterResult): string {
  const names = result.commands.map((name) => `/${name}`).join(", ");
  return result.scope.kind === "guild"
    ? `Registered ${names} in server ${result.scope.guildId}; they are usable there now.`
    : `Registered ${names} globally; Discord can take up to an hour to show them everywhere.`;
}

/** One line a person can act on. */
function describeFailure(error: unknown): string {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}`;
  if (error instanceof DiscordAPIError) {
    if (error.status === 401)
      return "Discord rejected DISCORD_TOKEN (401 Unauthorized): copy the bot token again from the Developer Portal (Bot → Reset Token).";
    if (error.status === 403 || error.status === 404) {
      return `Discord refused (${error.status}: ${error.message}): check that DISCORD_APPLICATION_ID belongs to this bot and, with DISCORD_GUILD_ID, that the bot was invited to that server with the applications.commands scope.`;
    }
    return `Discord refused the commands (${error.status}: ${error.message}).`;
  }
  return `Could not register the commands: ${error instanceof Error ? error.message : String(error)}`;
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const config = loadConfig(env).discord;
    if (!config) throw new ConfigError("DISCORD_TOKEN", "expects the bot token to register the commands", undefined);
    console.log(describeRegistration(await registerCommands(config)));
    return 0;
  } catch (error) {
    console.error(describeFailure(error));
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  (await import("../../env-file.js")).loadEnvFileOrExit();
  process.exitCode = await main();
}
