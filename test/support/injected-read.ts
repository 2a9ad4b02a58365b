// A read tool whose result carries an instruction someone else wrote (an inbox, a page, an MCP
// result): what the approval card's origin lines are tested against on every surface.
import { z } from "zod";
import type { Tool } from "../../src/contracts/types.js";

export const INJECTED_READ = "read_inbox";

/** `read_inbox`: returns what `text` says when it is called (a test may name a channel known only then). */
export function injectedRead(text: () => string): Tool<Record<string, never>> {
  return { name: INJECTED_READ, description: "reads the inbox", schema: z.object({}), effect: "read", execute: async () => text() };
}
