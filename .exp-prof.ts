import { Tokenizer } from "./src/agent/tokenizer.js";
const tok = Tokenizer.for("o200k_base");
const cjk = (n: number, o: number) => Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919 + o) % 20000))).join("");
let s = performance.now(); tok.count(cjk(333000, 0)); console.log("first cjk 1MB", (performance.now() - s).toFixed(1));
for (let k = 1; k < 4; k++) { const t = cjk(333000, k); const s = performance.now(); tok.count(t); console.log("fresh cjk 1MB", (performance.now() - s).toFixed(1)); }
