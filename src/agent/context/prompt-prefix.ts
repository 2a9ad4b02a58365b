// How much of a request a prompt cache could reuse: the tokens of the longest byte-identical
// prefix it shares with an earlier request. Model servers cache what is sent first (the tool
// schemas, then the messages in order), so a request is compared as that sequence of parts.
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { ChatMessage, ToolSchema } from "../../contracts/types.js";

/** The request as the server sees its order: each tool schema, then each message, as text. */
export function requestParts(tools: readonly ToolSchema[], messages: readonly ChatMessage[]): string[] {
  return [...tools.map((tool) => JSON.stringify(tool)), ...messages.map((message) => JSON.stringify(message))];
}

export interface PrefixShare {
  /** Tokens of the request's prefix that is byte-identical to the earlier request's. */
  readonly shared: number;
  readonly total: number;
}

function commonStart(a: string, b: string): string {
  let index = 0;
  while (index < a.length && index < b.length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return a.slice(0, index);
}

/** `earlier` undefined (no run before it): nothing shared. */
export function prefixShare(parts: readonly string[], earlier: readonly string[] | undefined, counter: TokenCounter): PrefixShare {
  let shared = 0;
  let total = 0;
  let same = earlier !== undefined;
  for (const [index, part] of parts.entries()) {
    const tokens = counter.countText(part);
    total += tokens;
    if (!same) continue;
    const other = earlier![index];
    if (other === part) {
      shared += tokens;
      continue;
    }
    same = false;
    if (other !== undefined) shared += counter.countText(commonStart(part, other));
  }
  return { shared, total };
}
