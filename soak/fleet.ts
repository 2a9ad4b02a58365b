// The bot processes: each in a slot with a fixed port, started again a second after it exits,
// whether the soak killed it (kill -9), stopped it (SIGTERM) or it died on its own. An exit the
// soak did not cause is a death the checker reports, with the last lines its process logged;
// every incarnation's log is kept in the run's folder.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../test/support/free-port.js";
import { startBot, type BotOptions, type BotProcess } from "../test/support/bot-child.js";

const RESTART_AFTER_MS = 1_000;
/** SIGTERM gives a bot 10 s (its own backstop); past this it is killed and that is reported. */
const TERM_GRACE_MS = 15_000;
const LAST_LINES = 8;

export interface BotSlot {
  readonly index: number;
  readonly port: number;
  readonly url: string;
  state: "starting" | "up" | "stopping" | "down";
  process: BotProcess | undefined;
  incarnation: number;
  /** What the soak did to the running process, so its exit is expected. */
  expecting: "kill" | "term" | "close" | undefined;
}

export interface Death {
  readonly slot: number;
  readonly incarnation: number;
  readonly atSeconds: number;
  readonly code: number | null;
  readonly signal: string | null;
  readonly lastLines: readonly string[];
}

export interface TermResult {
  readonly slot: number;
  readonly atSeconds: number;
  readonly code: number | null;
  readonly tookMs: number;
}

export interface Fleet {
  readonly slots: readonly BotSlot[];
  /** Slots whose process is up and taking requests. */
  live(): BotSlot[];
  /** kill -9 of the slot's process; false when it was not up. */
  kill(slot: BotSlot): boolean;
  /** SIGTERM of the slot's process; false when it was not up. */
  terminate(slot: BotSlot): boolean;
  /** Exits the soak did not cause. */
  readonly deaths: Death[];
  /** Starts that failed (the bot exited or never listened), with why. */
  readonly startFailures: Array<{ slot: number; atSeconds: number; reason: string }>;
  /** Graceful stops: how long each took and its exit code. */
  readonly terms: TermResult[];
  /** Resolves once every slot is up. */
  allUp(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
  /** SIGKILL to every process at once, for when the soak itself must exit now. */
  killNow(): void;
}

type Launch = Omit<BotOptions, "port">;

/**
 * Why a process ended, from its log: the error Node printed as it crashed (its first line and
 * where it was thrown), else the last errors it logged, else its last lines.
 */
export function whyItEnded(logs: string): string[] {
  const lines = logs.trimEnd().split("\n");
  const crash = lines.findIndex((line) => /^[\w.]*(Error|Exception)\b.*:/.test(line));
  if (crash >= 0) return lines.slice(crash, crash + 3).map((line) => line.trim().slice(0, 300));
  const errors = lines.filter((line) => /"level":(50|60)/.test(line));
  return (errors.length > 0 ? errors : lines).slice(-LAST_LINES / 2).map((line) => line.slice(0, 400));
}

/** `seconds()`: the soak's clock, which deaths and stops are stamped with. */
export async function startFleet(count: number, launch: Launch, logFolder: string, seconds: () => number): Promise<Fleet> {
  const deaths: Death[] = [];
  const startFailures: Fleet["startFailures"] = [];
  const terms: TermResult[] = [];
  let closing = false;
  const slots: BotSlot[] = [];
  for (let index = 0; index < count; index++) {
    const port = await freePort();
    slots.push({
      index,
      port,
      url: `http://127.0.0.1:${port}`,
      state: "down",
      process: undefined,
      incarnation: 0,
      expecting: undefined,
    });
  }

  const keepLog = (slot: BotSlot, bot: BotProcess): void =>
    writeFileSync(join(logFolder, `bot-${slot.index}-${slot.incarnation}.log`), bot.logs());

  async function bringUp(slot: BotSlot): Promise<void> {
    while (!closing) {
      slot.state = "starting";
      slot.incarnation += 1;
      slot.expecting = undefined;
      try {
        const bot = await startBot({ ...launch, port: slot.port });
        slot.process = bot;
        slot.state = "up";
        void bot.exited.then((exit) => onExit(slot, bot, exit.code, exit.signal));
        if (closing) {
          slot.expecting = "close";
          bot.child.kill("SIGKILL");
        }
        return;
      } catch (error) {
        const logs = (error as { logs?: unknown }).logs;
        if (typeof logs === "string") writeFileSync(join(logFolder, `bot-${slot.index}-${slot.incarnation}.log`), logs);
        const reason = String(error instanceof Error ? error.message : error);
        startFailures.push({ slot: slot.index, atSeconds: seconds(), reason: whyItEnded(reason).join("\n") });
        await sleep(RESTART_AFTER_MS);
      }
    }
  }

  function onExit(slot: BotSlot, bot: BotProcess, code: number | null, signal: NodeJS.Signals | null): void {
    keepLog(slot, bot);
    const expected = slot.expecting;
    slot.process = undefined;
    slot.state = "down";
    if (expected === "close") return;
    if (expected === undefined)
      deaths.push({
        slot: slot.index,
        incarnation: slot.incarnation,
        atSeconds: seconds(),
        code,
        signal,
        lastLines: whyItEnded(bot.logs()),
      });
    if (!closing) void sleep(RESTART_AFTER_MS).then(() => bringUp(slot));
  }

  // One after another: started together on a busy machine, each takes longer than a start may.
  for (const slot of slots) await bringUp(slot);

  return {
    slots,
    live: () => slots.filter((slot) => slot.state === "up"),
    kill(slot) {
      if (slot.state !== "up" || !slot.process) return false;
      slot.expecting = "kill";
      slot.state = "stopping";
      slot.process.child.kill("SIGKILL");
      return true;
    },
    terminate(slot) {
      const bot = slot.process;
      if (slot.state !== "up" || !bot) return false;
      slot.expecting = "term";
      slot.state = "stopping";
      const sent = performance.now();
      bot.child.kill("SIGTERM");
      const hardKill = setTimeout(() => bot.child.kill("SIGKILL"), TERM_GRACE_MS);
      void bot.exited.then((exit) => {
        clearTimeout(hardKill);
        terms.push({ slot: slot.index, atSeconds: seconds(), code: exit.code, tookMs: Math.round(exit.at - sent) });
      });
      return true;
    },
    deaths,
    startFailures,
    terms,
    async allUp(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (slots.every((slot) => slot.state === "up")) return true;
        await sleep(200);
      }
      return false;
    },
    killNow() {
      closing = true;
      for (const slot of slots) {
        slot.expecting = "close";
        slot.process?.child.kill("SIGKILL");
      }
    },
    async close() {
      closing = true;
      const running = slots.flatMap((slot) => (slot.process ? [{ slot, bot: slot.process }] : []));
      for (const { slot, bot } of running) {
        slot.expecting = "close";
        bot.child.kill("SIGKILL");
      }
      await Promise.all(running.map(({ bot }) => bot.exited));
      // A start still under way at the close ends when it listens (it sees `closing`) or fails.
      await Promise.all(
        slots.map(async (slot) => {
          for (let wait = 0; slot.state === "starting" && wait < 40; wait++) await sleep(250);
          if (slot.process) {
            slot.expecting = "close";
            slot.process.child.kill("SIGKILL");
            await slot.process.exited;
          }
        }),
      );
    },
  };
}
