import { pino } from "pino";
const obj = () => ({ runId: "abc123", step: 3, tools: ["lookup"], args: ["a1b2c3"], durationMs: 0.12, tokens: 1234, outcome: ["ok"] });
const SECRET = new Set(["apiKey","token","botToken","appToken","signingSecret","authorization"]);
const TOKEN_PATTERN = /\b(xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-[A-Za-z0-9_-]{8,}|[MN][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,})\b/g;
const hooks = { logMethod(this: any, args: any[], method: any) { method.apply(this, args.map((a) => typeof a === "string" ? a.replace(TOKEN_PATTERN, "[secret]") : a)); } };
const redact = { paths: ["apiKey","token","botToken","appToken","signingSecret","authorization","*.apiKey","*.token","*.botToken","*.appToken","*.signingSecret","*.authorization","headers.authorization"], censor: "[secret]" };
function scrub(o: Record<string, unknown>) { let out = o; for (const k in o) { if (SECRET.has(k)) { if (out === o) out = { ...o }; out[k] = "[secret]"; } } return out; }
const variants: Record<string, () => any> = {
  "current(redact+hook) sync": () => pino({ level: "info", redact, hooks }, pino.destination({ dest: "/dev/null", sync: true })),
  "current async 4k": () => pino({ level: "info", redact, hooks }, pino.destination({ dest: "/dev/null", sync: false, minLength: 4096 })),
  "hook, no redact, async 4k": () => pino({ level: "info", hooks }, pino.destination({ dest: "/dev/null", sync: false, minLength: 4096 })),
  "scrub formatter+hook async 4k": () => pino({ level: "info", hooks, formatters: { log: scrub } }, pino.destination({ dest: "/dev/null", sync: false, minLength: 4096 })),
  "scrub formatter+hook sync": () => pino({ level: "info", hooks, formatters: { log: scrub } }, pino.destination({ dest: "/dev/null", sync: true })),
  "plain sync": () => pino({ level: "info" }, pino.destination({ dest: "/dev/null", sync: true })),
  "plain async 4k": () => pino({ level: "info" }, pino.destination({ dest: "/dev/null", sync: false, minLength: 4096 })),
};
const best: Record<string, number> = {};
for (let rep = 0; rep < 5; rep++) for (const [name, make] of Object.entries(variants)) {
  const logger = make();
  for (let i = 0; i < 20000; i++) logger.info(obj(), "step");
  const N = 100000; const t = performance.now();
  for (let i = 0; i < N; i++) logger.info(obj(), "step");
  const us = (performance.now() - t) * 1000 / N;
  best[name] = Math.min(best[name] ?? Infinity, us);
  await new Promise((r) => setTimeout(r, 50));
}
for (const [k, v] of Object.entries(best)) console.log(k.padEnd(32), v.toFixed(2), "µs/line");
