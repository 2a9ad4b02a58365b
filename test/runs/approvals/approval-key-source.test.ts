// Which key signs approvals, decided from the settings alone, and the key file's life: created
// once (whoever loses the race reads the winner's key, no temp file left), a file that can't be
// used named in a clear error, a file others can read warned about.
import { chmod, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { approvalKeySource, deriveApprovalKey, planApprovalKey } from "../../../src/runs/approvals/approval-key.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { temporaryFolder } from "../../support/temporary-folder.js";

const folders: Array<{ remove: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => folder.remove()));
});

async function keyFolder(): Promise<string> {
  const folder = await temporaryFolder();
  folders.push(folder);
  return folder.path;
}

const CONFIGURED = "the-configured-approval-secret";
const REDIS = "redis://127.0.0.1:1";
const SQLITE = "sqlite://data/bot.sqlite";
const slackHttp = { SLACK_BOT_TOKEN: "xoxb-bot", SLACK_SIGNING_SECRET: "signing-secret" };
const slackSocket = { SLACK_BOT_TOKEN: "xoxb-bot", SLACK_APP_TOKEN: "xapp-app" };
const discord = { DISCORD_TOKEN: "discord-token", DISCORD_APPLICATION_ID: "1" };

describe("planApprovalKey", () => {
  it("takes APPROVAL_SECRET before any shared chat secret", () => {
    expect(planApprovalKey(loadConfig({ STORE_URL: REDIS, APPROVAL_SECRET: CONFIGURED, ...slackHttp }))).toEqual({
      kind: "configured",
      secret: CONFIGURED,
    });
  });

  it("on Redis derives from the chat secret every process has: Slack's signing secret, else its bot token, else Discord's token", () => {
    expect(planApprovalKey(loadConfig({ STORE_URL: REDIS, ...slackHttp }))).toEqual({
      kind: "derived",
      from: "SLACK_SIGNING_SECRET",
      secret: "signing-secret",
    });
    expect(planApprovalKey(loadConfig({ STORE_URL: REDIS, ...slackSocket }))).toEqual({
      kind: "derived",
      from: "SLACK_BOT_TOKEN",
      secret: "xoxb-bot",
    });
    expect(planApprovalKey(loadConfig({ STORE_URL: REDIS, ...discord }))).toEqual({
      kind: "derived",
      from: "DISCORD_TOKEN",
      secret: "discord-token",
    });
  });

  it("on SQLite takes the key file even when a chat secret is set: one machine, and the secret may leak with its logs", () => {
    expect(planApprovalKey(loadConfig({ STORE_URL: SQLITE, APPROVAL_KEY_FILE: "/keys/approval.key", ...slackHttp }))).toEqual({
      kind: "file",
      path: "/keys/approval.key",
    });
  });
});

describe("approvalKeySource", () => {
  it("signs with APPROVAL_SECRET's bytes and recommends nothing", async () => {
    const { logger, lines } = capturingLogger();
    const key = approvalKeySource(loadConfig({ STORE_URL: REDIS, APPROVAL_SECRET: CONFIGURED, ...slackHttp }), logger);
    expect(await key()).toEqual(Buffer.from(CONFIGURED));
    expect(lines).toEqual([]);
  });

  it("signs with the derived key when only a chat secret is shared", async () => {
    const { logger } = capturingLogger();
    const key = approvalKeySource(loadConfig({ STORE_URL: REDIS, ...slackHttp }), logger);
    expect(await key()).toEqual(deriveApprovalKey("signing-secret"));
  });

  it("on SQLite creates the key file on the first call, warns about nothing, and leaves no temp file", async () => {
    const folder = await keyFolder();
    const path = join(folder, "keys", "approval.key");
    const { logger, lines } = capturingLogger();
    const key = await approvalKeySource(loadConfig({ STORE_URL: SQLITE, APPROVAL_KEY_FILE: path }), logger)();
    expect(key).toEqual(Buffer.from((await readFile(path, "utf8")).trim(), "base64"));
    expect(key).toHaveLength(32);
    expect(await readdir(join(folder, "keys"))).toEqual(["approval.key"]);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it("processes starting together agree on one key: the race's loser reads the winner's file", async () => {
    const folder = await keyFolder();
    const path = join(folder, "approval.key");
    const config = loadConfig({ STORE_URL: SQLITE, APPROVAL_KEY_FILE: path });
    const { logger, lines } = capturingLogger();
    const keys = await Promise.all(Array.from({ length: 5 }, () => approvalKeySource(config, logger)()));
    const stored = Buffer.from((await readFile(path, "utf8")).trim(), "base64");
    for (const key of keys) expect(key).toEqual(stored);
    expect(await readdir(folder)).toEqual(["approval.key"]);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it("reads an existing file and warns when other users can read it", async () => {
    const folder = await keyFolder();
    const path = join(folder, "approval.key");
    const text = Buffer.alloc(32, 7).toString("base64");
    await writeFile(path, `${text}\n`, { mode: 0o600 });
    const config = loadConfig({ STORE_URL: SQLITE, APPROVAL_KEY_FILE: path });
    const quiet = capturingLogger();
    expect(await approvalKeySource(config, quiet.logger)()).toEqual(Buffer.alloc(32, 7));
    expect(quiet.warnings()).toEqual([]);

    await chmod(path, 0o644);
    const warned = capturingLogger();
    expect(await approvalKeySource(config, warned.logger)()).toEqual(Buffer.alloc(32, 7));
    expect(warned.warnings().map((line) => line.msg)).toEqual([
      "the approval key file can be read by other users; restrict it with chmod 600",
    ]);
  });

  it("a key file path that is a folder can't be read: named in the error, not taken for a missing file", async () => {
    const folder = await keyFolder();
    const path = join(folder, "approval.key");
    await mkdir(path);
    const { logger } = capturingLogger();
    await expect(approvalKeySource(loadConfig({ STORE_URL: SQLITE, APPROVAL_KEY_FILE: path }), logger)()).rejects.toThrow(
      `The approval key file ${path} could not be read (EISDIR`,
    );
  });

  it("a key file whose folder can't be made is named in the error, and the next call tries again", async () => {
    const folder = await keyFolder();
    await symlink(join(folder, "nowhere"), join(folder, "keys"));
    const path = join(folder, "keys", "approval.key");
    const { logger } = capturingLogger();
    const key = approvalKeySource(loadConfig({ STORE_URL: SQLITE, APPROVAL_KEY_FILE: path }), logger);
    await expect(key()).rejects.toThrow(`The approval key file ${path} could not be created (`);
    await expect(key()).rejects.toThrow(/could not be created/);
  });

  it("a key file that is not there right after it was linked (a dangling link in its place) is an error, not a key", async () => {
    const folder = await keyFolder();
    const path = join(folder, "approval.key");
    await symlink(join(folder, "nowhere"), path);
    const { logger } = capturingLogger();
    await expect(approvalKeySource(loadConfig({ STORE_URL: SQLITE, APPROVAL_KEY_FILE: path }), logger)()).rejects.toThrow(
      `The approval key file ${path} vanished right after it was created`,
    );
    expect((await readdir(folder)).sort()).toEqual(["approval.key"]);
  });
});
