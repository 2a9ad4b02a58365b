// What the single-process Slack bot tests share: a fake Slack, a fake model server and a folder
// for the store, fresh for each test; afterwards every bot process still running is killed.
import { afterEach, beforeEach } from "vitest";
import type { BotProcess } from "./bot-child.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai-server.js";
import { startFakeSlack, type FakeSlack } from "./fake-slack.js";
import { temporaryFolder } from "./temporary-folder.js";

export interface SlackBotHarness {
  readonly slack: FakeSlack;
  readonly model: FakeOpenAI;
  readonly folder: Awaited<ReturnType<typeof temporaryFolder>>;
  /** Bots started by the test: killed after it. */
  readonly bots: BotProcess[];
}

/** Registers the test hooks; the harness's parts are the current test's. */
export function useSlackBotHarness(): SlackBotHarness {
  type Parts = Omit<SlackBotHarness, "bots">;
  let current: Parts | undefined;
  const bots: BotProcess[] = [];
  const part = <K extends keyof Parts>(key: K): Parts[K] => {
    if (!current) throw new Error("the Slack bot harness is there only inside a test");
    return current[key];
  };
  beforeEach(async () => {
    current = { slack: await startFakeSlack(), model: await startFakeOpenAI(), folder: await temporaryFolder() };
  });
  afterEach(async () => {
    for (const bot of bots.splice(0)) if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
    await current?.model.close();
    await current?.slack.close();
    await current?.folder.remove();
    current = undefined;
  });
  return {
    get slack() {
      return part("slack");
    },
    get model() {
      return part("model");
    },
    get folder() {
      return part("folder");
    },
    bots,
  };
}
