import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { describeRegistration, main, registerCommands } from "../../../src/adapters/discord/register-commands.js";
import { FakeDiscord } from "../../support/fake-discord.js";

let fake: FakeDiscord;
beforeAll(async () => {
  fake = await FakeDiscord.start();
});
afterAll(async () => {
  await fake.close();
});

const env = (extra: Record<string, string> = {}) => ({
  DISCORD_TOKEN: fake.token,
  DISCORD_APPLICATION_ID: fake.applicationId,
  DISCORD_API_URL: fake.apiUrl,
  ...extra,
});

/** Runs the CLI entry; returns its exit code and what it printed. */
async function runCli(environment: Record<string, string>): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: string) => void out.push(line));
  const error = vi.spyOn(console, "error").mockImplementation((line: string) => void err.push(line));
  try {
    return { code: await main(environment), out, err };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** /ask, then the core's command table in its order. */
const ALL = [
  "ask",
  "memory",
  "forget",
  "tools",
  "audit",
  "settings",
  "feedback",
  "usage",
  "schedule",
  "schedules",
  "unschedule",
  "pause",
  "resume",
];

describe("discord:register", () => {
  it("PUTs /ask (with its required question and optional file) and the core's commands (/schedule with its options) to the guild", async () => {
    const result = await registerCommands({
      token: fake.token,
      applicationId: fake.applicationId,
      apiUrl: fake.apiUrl,
      guildId: fake.guild.id,
      approvers: [],
    });
    expect(result).toEqual({
      scope: { kind: "guild", guildId: fake.guild.id },
      commands: ALL,
    });

    const put = fake.callsTo("PUT", new RegExp(`^/applications/${fake.applicationId}/guilds/${fake.guild.id}/commands$`)).at(-1)!;
    expect(put.body.map((command: { name: string }) => command.name)).toEqual(ALL);
    const ask = put.body[0];
    expect(ask.options).toEqual([
      expect.objectContaining({ name: "question", type: 3, required: true }),
      expect.objectContaining({ name: "file", type: 11, required: false }),
    ]);
    const schedule = put.body.find((command: { name: string }) => command.name === "schedule");
    expect(schedule.options).toEqual([
      expect.objectContaining({ name: "when", type: 3, required: true, max_length: 400 }),
      expect.objectContaining({ name: "task", type: 3, required: true, max_length: 4000 }),
    ]);
    for (const command of put.body) for (const option of command.options ?? []) expect(option.description.length).toBeLessThanOrEqual(100);
    for (const command of put.body) expect(command.description.length).toBeLessThanOrEqual(100);
  });

  it("registers globally without DISCORD_GUILD_ID and says what it did", async () => {
    const { code, out, err } = await runCli(env());
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toEqual([
      `Registered ${ALL.map((name) => `/${name}`).join(", ")} globally; Discord can take up to an hour to show them everywhere.`,
    ]);
    expect(fake.commands.get(`global:${fake.applicationId}`)).toHaveLength(ALL.length);
  });

  it("says it registered in the server when DISCORD_GUILD_ID is set", async () => {
    const { code, out } = await runCli(env({ DISCORD_GUILD_ID: fake.guild.id }));
    expect(code).toBe(0);
    expect(out).toEqual([
      describeRegistration({
        scope: { kind: "guild", guildId: fake.guild.id },
        commands: ALL,
      }),
    ]);
  });

  it("fails with one clear line when Discord rejects the token", async () => {
    const { code, out, err } = await runCli(env({ DISCORD_TOKEN: "not-the-token" }));
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^Discord rejected DISCORD_TOKEN \(401 Unauthorized\)/);
    expect(err[0]).not.toContain("not-the-token");
  });

  it("fails with one clear line when the configuration is incomplete", async () => {
    expect((await runCli({ DISCORD_API_URL: fake.apiUrl })).err).toEqual([
      "Configuration error: DISCORD_TOKEN: expects the bot token to register the commands (it is not set)",
    ]);
    const missingApp = await runCli({ DISCORD_TOKEN: fake.token });
    expect(missingApp.code).toBe(1);
    expect(missingApp.err).toEqual([expect.stringMatching(/^Configuration error: DISCORD_APPLICATION_ID: /)]);
  });
});
