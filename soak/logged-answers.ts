// Answers that never reached Slack but were logged instead ("…; it is in this log line"): the
// bot's last resort when it has no way to show an outcome. Found in the bots' logs so an
// unanswered message's report says where its answer went.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const LAST_RESORT = /in this log line|could not post the answer/;
const TAG = /(?:ANSWER m|soak m)(\d+)\b/;

/** Message number → "<log file>: <message>" for each logged answer. */
export function loggedAnswers(folder: string): Map<number, string[]> {
  const found = new Map<number, string[]>();
  for (const file of readdirSync(folder).filter((name) => /^bot-\d+-\d+\.log$/.test(name))) {
    for (const line of readFileSync(join(folder, file), "utf8").split("\n")) {
      if (!line.startsWith("{") || !LAST_RESORT.test(line)) continue;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const tag = TAG.exec(JSON.stringify({ outcome: entry.outcome, answer: entry.answer }));
      if (!tag) continue;
      const n = Number(tag[1]);
      found.set(n, [...(found.get(n) ?? []), `${file}: ${String(entry.msg)}`]);
    }
  }
  return found;
}
