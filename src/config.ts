// Every setting comes from the environment and is checked here, once, at start. A bad value
// stops the process with one line naming the variable (see src/main.ts). Each variable is
// declared once, in its area under src/config/; the rules that tie variables together are in
// src/config/rules.ts; docs/configuration.md is generated from both (npm run docs:config).
import { z } from "zod";
import { AREAS, type Config, type Env } from "./config/areas.js";
import { firstBrokenRule } from "./config/rules.js";
import { ConfigError } from "./errors.js";

export type { Config } from "./config/areas.js";
export type { ToolPolicyRule } from "./config/tools.js";
export { checkChatModel, checkContextWindow } from "./config/rules.js";

export type GuardLimits = Config["guards"];
export type ScheduleConfig = Config["schedules"];

const VARIABLES = AREAS.flatMap((area) => Object.values(area.variables));
const EnvSchema = z.object(Object.fromEntries(VARIABLES.map((variable) => [variable.name, variable.schema])));
const SECRETS = new Set(VARIABLES.filter((variable) => variable.secret).map((variable) => variable.name));

function configError(variable: string, expected: string, got: string | undefined): ConfigError {
  return new ConfigError(variable, expected, SECRETS.has(variable) && got !== undefined ? "<hidden>" : got);
}

/** Parses the environment; throws ConfigError naming the first bad variable. An empty value counts as unset. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value.trim() !== ""));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? "environment");
    throw configError(variable, issue.message, present[variable]);
  }
  // The schema is built from the declarations that Env is derived from: its output is Env.
  const env = parsed.data as Env;
  const broken = firstBrokenRule(env);
  if (broken) throw configError(broken.variable, broken.expected, broken.got);
  return Object.assign({}, ...AREAS.map((area) => area.read(env))) as Config;
}
