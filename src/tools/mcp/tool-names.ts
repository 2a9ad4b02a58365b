// What the model calls an MCP tool: `<server>__<tool>`, in the characters and length that every
// OpenAI-compatible server accepts for a function name, unique across all servers.

const MAX_NAME_LENGTH = 64;
const UNSAFE = /[^A-Za-z0-9_-]/g;

/** `server__tool` with unsafe characters replaced and cut to 64; a clash with `taken` gets `_2`, `_3`… (also within 64). */
export function prefixedToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const base = `${server}__${tool}`.replace(UNSAFE, "_").slice(0, MAX_NAME_LENGTH);
  if (!taken.has(base)) return base;
  for (let suffix = 2; ; suffix++) {
    const tail = `_${suffix}`;
    const candidate = `${base.slice(0, MAX_NAME_LENGTH - tail.length)}${tail}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}

/** A server's `reads`: the tools the operator says only read (globs over the server's own names). */
export function listedAsRead(config: { readonly reads: readonly string[] }, name: string): boolean {
  return config.reads.some((pattern) => globToRegExp(pattern).test(name));
}

/** A server's `tools.allow` / `tools.deny` (globs over the server's own tool names): deny wins. */
export function toolFilter(allow: readonly string[], deny: readonly string[]): (name: string) => boolean {
  const allowed = allow.map(globToRegExp);
  const denied = deny.map(globToRegExp);
  return (name) => allowed.some((test) => test.test(name)) && !denied.some((test) => test.test(name));
}
