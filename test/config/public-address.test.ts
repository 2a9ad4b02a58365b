// PUBLIC_URL and TRUST_PROXY are checked at start like every other variable: a wrong value is one
// line naming it, and the start stops.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { temporaryFolder } from "../support/temporary-folder.js";

const ADDRESS_EXPECTED = "expects the http(s) address the bot is reached at, e.g. https://bot.example.com (no user, query or fragment)";
const PROXIES_EXPECTED = "expects no, yes (one proxy) or how many proxies stand in front of the bot, 0 to 10";

describe("PUBLIC_URL and TRUST_PROXY", () => {
  it("default to no public address and no proxy", () => {
    const config = loadConfig({});
    expect(config.publicUrl).toBeUndefined();
    expect(config.trustedProxies).toBe(0);
  });

  it.each([
    ["no", 0],
    ["off", 0],
    ["0", 0],
    ["yes", 1],
    ["TRUE", 1],
    ["1", 1],
    ["2", 2],
    [" 10 ", 10],
  ])("TRUST_PROXY=%j is %i proxies", (value, proxies) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustedProxies).toBe(proxies);
  });

  it("take an http(s) public address as it is written", () => {
    expect(loadConfig({ PUBLIC_URL: "https://bot.example.com" }).publicUrl).toBe("https://bot.example.com");
    expect(loadConfig({ PUBLIC_URL: "http://10.0.0.5:3000/bot/" }).publicUrl).toBe("http://10.0.0.5:3000/bot/");
  });

  it.each([
    [{ TRUST_PROXY: "11" }, `TRUST_PROXY: ${PROXIES_EXPECTED} (got "11")`],
    [{ TRUST_PROXY: "maybe" }, `TRUST_PROXY: ${PROXIES_EXPECTED} (got "maybe")`],
    [{ TRUST_PROXY: "0x2" }, `TRUST_PROXY: ${PROXIES_EXPECTED} (got "0x2")`],
    [{ TRUST_PROXY: "-1" }, `TRUST_PROXY: ${PROXIES_EXPECTED} (got "-1")`],
    [{ PUBLIC_URL: "bot.example.com" }, `PUBLIC_URL: ${ADDRESS_EXPECTED} (got "bot.example.com")`],
    [{ PUBLIC_URL: "ftp://bot.example.com" }, `PUBLIC_URL: ${ADDRESS_EXPECTED} (got "ftp://bot.example.com")`],
    [{ PUBLIC_URL: "https://admin:pw@bot.example.com" }, `PUBLIC_URL: ${ADDRESS_EXPECTED} (got "https://admin:pw@bot.example.com")`],
    [{ PUBLIC_URL: "https://bot.example.com/?from=x" }, `PUBLIC_URL: ${ADDRESS_EXPECTED} (got "https://bot.example.com/?from=x")`],
    [{ PUBLIC_URL: "https://bot.example.com/#top" }, `PUBLIC_URL: ${ADDRESS_EXPECTED} (got "https://bot.example.com/#top")`],
  ])("refuse %j with one line", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("a wrong value stops the start with that one line", async () => {
    const folder = await temporaryFolder();
    try {
      const env = { STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, LOG_LEVEL: "silent" };
      expect(await startApp({ ...env, TRUST_PROXY: "maybe" })).toEqual({
        kind: "failed",
        message: `Configuration error: TRUST_PROXY: ${PROXIES_EXPECTED} (got "maybe")`,
      });
      expect(await startApp({ ...env, PUBLIC_URL: "bot.example.com" })).toEqual({
        kind: "failed",
        message: `Configuration error: PUBLIC_URL: ${ADDRESS_EXPECTED} (got "bot.example.com")`,
      });
    } finally {
      await folder.remove();
    }
  });
});
