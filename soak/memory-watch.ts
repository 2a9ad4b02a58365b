// The resident memory of each bot process and the file readers it started, sampled from /proc
// while the soak runs, as an operator's monitoring would see it: the peak per slot is printed
// at the end (a process restarted by the chaos keeps its slot's figure).
import { residentBytes, treeResidentBytes } from "../test/support/process-tree.js";
import type { Fleet } from "./fleet.js";

const SAMPLE_MS = 250;
const MB = 1024 * 1024;

export interface MemoryWatch {
  /** Stops sampling; one line per slot: its bot's peak and the peak of the bot with its readers. */
  stop(): string[];
}

export function watchMemory(fleet: Fleet): MemoryWatch {
  const bot = new Map<number, number>();
  const tree = new Map<number, number>();
  const timer = setInterval(() => {
    for (const slot of fleet.slots) {
      const pid = slot.process?.child.pid;
      if (pid === undefined || slot.state !== "up") continue;
      bot.set(slot.index, Math.max(bot.get(slot.index) ?? 0, residentBytes(pid)));
      tree.set(slot.index, Math.max(tree.get(slot.index) ?? 0, treeResidentBytes(pid)));
    }
  }, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return fleet.slots.map(
        (slot) =>
          `bot ${slot.index}: peak RSS ${((bot.get(slot.index) ?? 0) / MB).toFixed(0)} MB, with its file readers ${((tree.get(slot.index) ?? 0) / MB).toFixed(0)} MB`,
      );
    },
  };
}
