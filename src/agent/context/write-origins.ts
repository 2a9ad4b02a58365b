// Which of a write's arguments came from text that is not the requester's: a value found whole
// in another source's text (a destination, an address, a short phrase), or a long value most of
// whose words run on in it (text copied, perhaps lightly edited). A value the requester wrote
// themselves is theirs, wherever else it appears. Pure: the approval card shows the lines.
import { isRequesterSource, type SourcedText, type TextSource, type WriteOrigin } from "../../contracts/provenance.js";
import { sourceLabel } from "../../contracts/source-label.js";

/** Runs of this many words are what "copied" means for a long value. */
export const SHINGLE_WORDS = 5;
/** A long value is copied when at least this share of its words lie in runs found in one source. */
const COPIED_SHARE = 0.5;
/** Shorter values are too common to say where they came from ("ok", "#"). */
const MIN_VALUE_CHARS = 4;
/** Nested arguments are looked into this deep, no deeper (the model writes them; they are bounded by the schema too). */
const MAX_DEPTH = 4;

/** Argument names that say where a write goes or whom it reaches. */
const DESTINATION_NAMES =
  /(^|_)(channel|to|cc|bcc|recipients?|user|users|email|emails|address|url|link|destination|target|path|repo|thread|thread_ts)$/i;

interface Value {
  readonly path: string;
  readonly name: string;
  readonly text: string;
}

/** The string leaves of the arguments (numbers as text), with their paths. */
function valuesOf(value: unknown, path: string, name: string, depth: number, into: Value[]): Value[] {
  if (typeof value === "string" || typeof value === "number") into.push({ path, name, text: String(value) });
  else if (depth < MAX_DEPTH && Array.isArray(value))
    for (const [index, item] of value.entries()) valuesOf(item, `${path}[${index}]`, name, depth + 1, into);
  else if (depth < MAX_DEPTH && value !== null && typeof value === "object")
    for (const [key, item] of Object.entries(value)) valuesOf(item, path === "" ? key : `${path}.${key}`, key, depth + 1, into);
  return into;
}

/** Case, spacing and punctuation at word edges don't hide a copy. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}#@<]+|[^\p{L}\p{N}>]+$/gu, ""))
    .filter((word) => word !== "");
}

const normalized = (text: string): string => words(text).join(" ");

export function shingles(list: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (let index = 0; index + SHINGLE_WORDS <= list.length; index++) found.add(list.slice(index, index + SHINGLE_WORDS).join(" "));
  return found;
}

/** The share of the value's words that lie in a run of SHINGLE_WORDS words also found in `text`. */
function sharedShare(value: readonly string[], text: ReadonlySet<string>): number {
  const covered = new Array<boolean>(value.length).fill(false);
  for (let index = 0; index + SHINGLE_WORDS <= value.length; index++)
    if (text.has(value.slice(index, index + SHINGLE_WORDS).join(" "))) covered.fill(true, index, index + SHINGLE_WORDS);
  return covered.filter(Boolean).length / value.length;
}

interface PreparedSource {
  readonly source: TextSource;
  readonly flat: string;
  readonly shingles: ReadonlySet<string>;
}

function matchIn(value: Value, source: PreparedSource): WriteOrigin["match"] | undefined {
  const flat = normalized(value.text);
  if (flat.length < MIN_VALUE_CHARS) return undefined;
  if (` ${source.flat} `.includes(` ${flat} `) || (flat.length >= 12 && source.flat.includes(flat))) return "whole";
  const list = words(value.text);
  if (list.length < SHINGLE_WORDS * 2) return undefined;
  return sharedShare(list, source.shingles) >= COPIED_SHARE ? "part" : undefined;
}

/**
 * For each argument value, the sources other than the requester it appears in, in the order of
 * `sources`; none for a value the requester's own text holds as well.
 */
export function writeOrigins(args: unknown, sources: readonly SourcedText[]): WriteOrigin[] {
  const prepare = (item: SourcedText): PreparedSource => {
    const list = words(item.text);
    return { source: item.source, flat: list.join(" "), shingles: shingles(list) };
  };
  const requester = sources.filter((item) => isRequesterSource(item.source)).map(prepare);
  const others = sources.filter((item) => !isRequesterSource(item.source)).map(prepare);
  const origins: WriteOrigin[] = [];
  for (const value of valuesOf(args, "", "", 0, [])) {
    if (requester.some((own) => matchIn(value, own) !== undefined)) continue;
    const role = DESTINATION_NAMES.test(value.name) ? "destination" : "text";
    for (const other of others) {
      const match = matchIn(value, other);
      if (match) origins.push({ argument: value.path, role, source: other.source, match });
    }
  }
  return origins;
}

/** One origin as the card shows it: "destination named in the file “report.pdf”", "text copied from a message by @mallory in #general". */
export function originLine(origin: WriteOrigin): string {
  const from = sourceLabel(origin.source);
  if (origin.role === "destination") return `${origin.argument}: destination named in ${from}`;
  return `${origin.argument}: text copied ${origin.match === "part" ? "in large part " : ""}from ${from}`;
}
