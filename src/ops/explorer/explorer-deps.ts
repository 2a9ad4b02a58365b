// What the explorer reads and changes, and what a page handler is handed for one request.
import type { IncomingMessage } from "node:http";
import type { Logger } from "../../logger.js";
import type { PriceTable } from "../../cost/prices.js";
import type { AuditLog } from "../../governance/audit-log.js";
import type { FeedbackBook } from "../../memory/feedback.js";
import type { LongTermMemory } from "../../memory/long-term-memory.js";
import type { RunRecordStore } from "../../memory/run-records/record-store.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { ConnectionListing } from "../../tools/mcp/auth/connection-store.js";
import type { ToolList } from "../../tools/tool-list.js";
import type { Reply } from "./http-io.js";
import type { Caller } from "./sessions.js";

export interface ToolGroup {
  readonly surface: string;
  readonly tools: ToolList;
}

export interface SettingsView {
  /** Name and value of each setting in force (no secrets). */
  readonly settings: readonly (readonly [string, string])[];
  /** The settings file in force, if any, as JSON. */
  readonly file?: { readonly path: string; readonly content: unknown };
}

export interface ExplorerDeps {
  /** ADMIN_TOKEN. */
  readonly token: string;
  /** TRUST_PROXY: how many reverse proxies stand in front (0: the forwarding headers are ignored). */
  readonly trustedProxies: number;
  /** PUBLIC_URL, when set: an https one marks the session cookie Secure whatever the request says. */
  readonly publicUrl?: string;
  readonly records: RunRecordStore;
  /** The usage counters are read from it. */
  readonly store: KeyValueStore;
  readonly prices: PriceTable;
  readonly feedback: Pick<FeedbackBook, "totals">;
  readonly audit: AuditLog;
  readonly memory: Pick<LongTermMemory, "list" | "forgetFact">;
  readonly tools: () => readonly ToolGroup[];
  readonly settings: () => SettingsView;
  /** People's connections to MCP servers behind OAuth (who, which server, since when; never a token). */
  readonly connections?: () => Promise<readonly ConnectionListing[]>;
  readonly logger: Logger;
  readonly clock?: () => number;
}

/** One request as a page handler sees it: the caller already allowed, a POST's form already read and its CSRF checked. */
export interface PageRequest {
  readonly request: IncomingMessage;
  readonly url: URL;
  /** The path's captured parts (a run id). */
  readonly params: readonly string[];
  readonly form: URLSearchParams;
  readonly caller: Caller;
  /** The session's CSRF token for the forms a page writes ("" for a Bearer caller, who needs none). */
  readonly csrf: string;
  readonly deps: ExplorerDeps;
  readonly now: number;
}

export type PageHandler = (request: PageRequest) => Promise<Reply> | Reply;
