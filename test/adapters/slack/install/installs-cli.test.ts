// `npm run slack:installs`: the installed workspaces as a real process reads them from the store
// another process wrote, with names, ids, dates and scopes, and never a token.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { Installation } from "@slack/oauth";
import { installLines } from "../../../../src/adapters/slack/install/installs-cli.js";
import { createSlackInstallations } from "../../../../src/adapters/slack/install/installation-store.js";
import { silentLogger } from "../../../../src/logger.js";
import { openStore } from "../../../../src/memory/keyv-store.js";
import { createSealedBox } from "../../../../src/tools/mcp/auth/sealed-box.js";
import { repoRoot } from "../../../support/repo-paths.js";
import { temporaryFolder } from "../../../support/temporary-folder.js";

const run = promisify(execFile);
const cli = join(repoRoot, "src", "adapters", "slack", "install", "installs-cli.ts");
const TOKEN = "xoxe.xoxb-secret-token-1";
const REFRESH = "xoxe-1-secret-refresh";

const installation = (team: string, name: string): Installation => ({
  team: { id: team, name },
  enterprise: undefined,
  user: { id: "U0ANNA", token: undefined, scopes: undefined },
  bot: {
    token: TOKEN,
    refreshToken: REFRESH,
    expiresAt: Math.floor(Date.now() / 1000) + 43_200,
    scopes: ["chat:write", "users:read"],
    id: "B1",
    userId: "U0BOT1",
  },
  isEnterpriseInstall: false,
  authVersion: "v2",
});

describe("npm run slack:installs", () => {
  it("lists each installed workspace in a line, and says so when there is none", () => {
    expect(installLines([])).toEqual(["The app is not installed in any workspace."]);
    const line = installLines([
      { key: "E:E1", enterprise: { id: "E1", name: "Grid" }, orgInstall: true, installedAt: 0, scopes: ["chat:write"], rotating: true },
    ]);
    expect(line).toEqual(["org Grid (E1), org-wide — installed 1970-01-01T00:00:00.000Z, tokens rotate, scopes: chat:write"]);
  });

  it("reads the store as a separate process: names and scopes, no token", async () => {
    const folder = await temporaryFolder();
    const url = `sqlite://${join(folder.path, "bot.sqlite")}`;
    const store = await openStore(url, silentLogger);
    const installs = createSlackInstallations(
      store,
      createSealedBox(async () => Buffer.alloc(32, 5)),
    );
    await installs.store(installation("T0ALPHA", "Alpha"));
    await installs.store(installation("T0BETA", "Beta"));
    await store.close();
    const plain = await run(process.execPath, ["--import", "tsx", cli], { env: { ...process.env, STORE_URL: url }, timeout: 30_000 });
    expect(plain.stdout).toMatch(/^Alpha \(T0ALPHA\) — installed .+, tokens rotate, scopes: chat:write, users:read\nBeta \(T0BETA\)/);
    const json = await run(process.execPath, ["--import", "tsx", cli, "--json"], {
      env: { ...process.env, STORE_URL: url },
      timeout: 30_000,
    });
    expect((JSON.parse(json.stdout) as Array<{ key: string }>).map((entry) => entry.key).sort()).toEqual(["T:T0ALPHA", "T:T0BETA"]);
    for (const output of [plain.stdout, json.stdout]) {
      expect(output).not.toContain(TOKEN);
      expect(output).not.toContain(REFRESH);
    }
    await folder.remove();
  });
});
