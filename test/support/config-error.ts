// The errors the configuration's readers throw (loadConfig's ConfigError for an environment, the
// MCP servers file's McpConfigError), for the tests of what they say.
import { expect } from "vitest";
import { loadConfig } from "../../src/config.js";
import { ConfigError, McpConfigError } from "../../src/errors.js";

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

/** The message of the McpConfigError `read` throws; fails the test when it throws none or another kind. */
export function mcpConfigErrorOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return (error as Error).message;
  }
  throw new Error("expected an McpConfigError");
}
