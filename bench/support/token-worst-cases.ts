// The worst inputs for token counting (issue 14), each timed as the bot meets it: a message or
// tool result counted, a long question or result cut. "held" is the longest stretch the event
// loop could not run anything else, measured with a setImmediate ticker beside the work.
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { Tokenizer } from "../../src/tokens/tokenizer.js";
import { printTable } from "./stats.js";

const MB = 1_000_000;
let seed = 0;

const cjk = (chars: number) => {
  const offset = ++seed * 7_919;
  return Array.from({ length: chars }, (_, index) => String.fromCodePoint(0x4e00 + ((index * 7_919 + offset) % 20_000))).join("");
};
const emoji = (count: number) => {
  const offset = ++seed;
  return Array.from({ length: count }, (_, index) => String.fromCodePoint(0x1f600 + ((index + offset) % 80))).join("");
};
const letters = (chars: number) => {
  let state = ++seed * 2_654_435_761;
  return Array.from({ length: chars }, () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return String.fromCharCode(97 + ((state >>> 16) % 26));
  }).join("");
};
const prose = (chars: number) => {
  const words = "the service answered slowly because the cache was cold after the deploy and retries piled up".split(" ");
  let text = `run ${++seed}: `;
  for (let index = 0; text.length < chars; index++) text += `${words[(index * 7 + seed) % words.length]}${index % 13 === 0 ? ".\n" : " "}`;
  return text.slice(0, chars);
};
const code = (chars: number) => {
  const run = ++seed;
  let text = "";
  for (let index = 0; text.length < chars; index++) text += `  const value${run}_${index} = compute(${index}, "k${index * run}");\n`;
  return text.slice(0, chars);
};
const base64 = (chars: number) =>
  Buffer.from(letters(Math.ceil((chars * 3) / 4)))
    .toString("base64")
    .slice(0, chars);

/** Runs `work` beside a ticker; returns its result, the total time and the longest gap between ticks. */
async function measured<T>(work: () => T | Promise<T>): Promise<{ value: T; totalMs: number; heldMs: number }> {
  let last = performance.now();
  let held = 0;
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    held = Math.max(held, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  const value = await work();
  const totalMs = performance.now() - started;
  ticking = false;
  held = Math.max(held, performance.now() - last);
  await new Promise((resolve) => setImmediate(resolve));
  return { value, totalMs, heldMs: held };
}

export async function worstCases(): Promise<void> {
  const tokenizer = Tokenizer.for("o200k_base");
  const counter = () => new TokenCounter("o200k_base");
  tokenizer.count(prose(10_000));
  const rows: string[][] = [];
  const over = (counted: number, exact: number) => `${(((counted - exact) / exact) * 100).toFixed(2)} %`;

  const counted = async (label: string, text: string, yielding: boolean) => {
    const { value, totalMs, heldMs } = await measured(() => (yielding ? counter().countTextYielding(text) : counter().countText(text)));
    rows.push([
      label,
      text.length.toLocaleString("en-US"),
      value.toLocaleString("en-US"),
      over(value, tokenizer.encode(text).length),
      totalMs.toFixed(1),
      heldMs.toFixed(1),
    ]);
  };
  await counted("3,000 emoji, counted", emoji(3_000), false);
  await counted("4,000 CJK characters without punctuation, counted", cjk(4_000), false);
  await counted("16,000 CJK characters without punctuation, counted", cjk(16_000), false);
  await counted("200,000 letters (a tool error), counted synchronously", letters(200_000), false);
  await counted("200,000 letters (a tool error), counted (yielding)", letters(200_000), true);
  // 1 MB in UTF-8: a CJK character is 3 bytes, an emoji 4.
  for (const [kind, text] of [
    ["Chinese", () => cjk(MB / 3)],
    ["letters", () => letters(MB)],
    ["emoji", () => emoji(MB / 4)],
    ["prose", () => prose(MB)],
    ["code", () => code(MB)],
    ["base64", () => base64(MB)],
  ] as const) {
    await counted(`1 MB of ${kind}, counted as a message (yielding)`, text(), true);
  }
  const cut = async (label: string, text: string, cap: number, yielding: boolean) => {
    const { value, totalMs, heldMs } = await measured(() =>
      yielding ? counter().truncateYielding(text, cap) : counter().truncate(text, cap),
    );
    rows.push([
      label,
      text.length.toLocaleString("en-US"),
      `→ ${value.text.length.toLocaleString("en-US")} chars`,
      "",
      totalMs.toFixed(1),
      heldMs.toFixed(1),
    ]);
  };
  await cut("200,000 letters (a tool error) cut to a 2,000-token observation", letters(200_000), 2_000, false);
  await cut("1 MB of Chinese cut to a 2,000-token observation", cjk(MB / 3), 2_000, false);
  await cut("1 MB of Chinese cut to a 128k window's question cap (yielding)", cjk(MB / 3), 62_976, true);
  await cut("1 MB of Chinese cut to a 1M window's question cap (yielding)", cjk(MB / 3), 522_764, true);

  console.log(
    "Worst inputs for token counting (o200k_base), each a fresh text; targets: held ≤ 50 ms, 1 MB ≤ 200 ms in all, ≤ 2 % over exact",
  );
  printTable(["input", "chars", "tokens", "over exact", "total ms", "held ms"], rows);
  console.log("");
}
