// Headless Chromium from Debian's packages (/usr/bin/chromium) driven by playwright-core, for the
// explorer's browser tests: each context gets a fresh profile folder and no network beyond
// 127.0.0.1 is ever asked for. Where Chromium is missing the tests skip with one line, unless
// REQUIRE_CHROMIUM=1 (CI) makes that a failure.
import { existsSync } from "node:fs";
import { describe } from "vitest";
import { chromium, type BrowserContext } from "playwright-core";
import { temporaryFolder } from "./temporary-folder.js";

const CHROMIUM = "/usr/bin/chromium";
const installed = existsSync(CHROMIUM);
if (!installed && process.env.REQUIRE_CHROMIUM === "1")
  throw new Error(`REQUIRE_CHROMIUM=1 but ${CHROMIUM} is missing; install it with \`apt-get install chromium\``);
if (!installed)
  process.stderr.write(`Skipping the browser tests: ${CHROMIUM} is not installed (\`apt-get install chromium\` to run them).\n`);

export const describeWithBrowser = describe.skipIf(!installed);

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = await temporaryFolder();
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await profile.remove();
    },
  };
}
