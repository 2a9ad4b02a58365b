// The tools' part of the start: each MCP server's first try (named before a slow first fetch,
// its state after), and the notices an operator must see about the tool rules: a write the
// policy lets run unasked, a TOOL_POLICY rule or a settings file's tool entry that matches no tool.
import type { Logger } from "./logger.js";
import { warnAboutAllowedWrites, warnAboutUnmatchedRules } from "./agent/tools/policy-warnings.js";
import type { Config } from "./config.js";
import type { SettingsSource } from "./governance/settings-source.js";
import { warnAboutUnmatchedToolEntries } from "./governance/settings-tool-names.js";
import type { ResourceStack } from "./resource-stack.js";
import type { McpManager } from "./tools/mcp/mcp-manager.js";
import { serverLines } from "./tools/mcp/mcp-startup.js";

export interface ToolStart {
  readonly config: Config;
  readonly manager?: McpManager;
  /** The lines naming each server before it starts. */
  readonly starting: readonly string[];
  /** The console writes the lines itself; elsewhere they are log lines. */
  readonly write?: (lines: readonly string[]) => void;
  readonly stack: ResourceStack;
  readonly source: SettingsSource;
  readonly logger: Logger;
}

/** Starts the MCP servers (one that fails keeps being retried), then warns about rules that match nothing of `offered()`. */
export async function startTools(start: ToolStart, offered: () => readonly string[]): Promise<void> {
  const { config, manager, logger, source } = start;
  const say =
    start.write ??
    ((lines: readonly string[]) => {
      for (const line of lines) logger.info(line);
    });
  if (manager) {
    start.stack.defer("clients", "the MCP servers", () => manager.close());
    say(start.starting);
    await manager.start();
    warnAboutAllowedWrites(manager.tools(), config.toolPolicy, logger);
    say(serverLines(manager.servers()));
  }
  const names = offered();
  warnAboutUnmatchedRules(names, config.toolPolicy, logger);
  warnAboutUnmatchedToolEntries(source.current(), names, source.path, logger);
  source.onReload((check) => {
    if (check.kind === "ok") warnAboutUnmatchedToolEntries(check.settings, names, source.path, logger);
  });
}
