// The ConfigError loadConfig throws for an environment, for the tests of what it says.
import { loadConfig } from "../../src/config.js";
import { ConfigError } from "../../src/errors.js";

/** The error loadConfig throws for `env`; fails the test when it throws none or another kind. */
export function configErrorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}
