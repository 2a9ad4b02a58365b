// One PDF dictionary read from its text (`<< /Filter /FlateDecode /Length 12 >>`), as far as the
// pre-scan needs it: names, numbers, arrays and nested dictionaries; strings, hex strings,
// comments and references are read past. A later key wins over an earlier one, as in pdf.js.
// The text is the file's own, so anything that does not parse cleanly is "unknown", never a guess.

export type PdfValue =
  | { readonly kind: "name"; readonly name: string }
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "array"; readonly items: readonly PdfValue[] }
  | { readonly kind: "dict"; readonly entries: ReadonlyMap<string, PdfValue> }
  /** A string, a reference, a keyword: present, but nothing the pre-scan reads. */
  | { readonly kind: "other" };

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (code: number) => !WHITESPACE.has(code) && !DELIMITERS.has(code);
/** Nesting a crafted file could use to exhaust the stack. */
const MAX_DEPTH = 32;

class Reader {
  at = 0;
  constructor(private readonly text: string) {}

  private code(offset = 0): number {
    return this.at + offset < this.text.length ? this.text.charCodeAt(this.at + offset) : -1;
  }

  skipSpace(): void {
    while (this.at < this.text.length) {
      const code = this.code();
      if (WHITESPACE.has(code)) this.at++;
      else if (code === 0x25) while (this.at < this.text.length && this.code() !== 0x0a && this.code() !== 0x0d) this.at++;
      else return;
    }
  }

  /** A value, or undefined when the text does not parse here. */
  value(depth: number): PdfValue | undefined {
    if (depth > MAX_DEPTH) return undefined;
    this.skipSpace();
    const code = this.code();
    if (code === 0x3c && this.code(1) === 0x3c) return this.dict(depth);
    if (code === 0x3c) return this.skipPast(0x3e) ? { kind: "other" } : undefined;
    if (code === 0x28) return this.literalString() ? { kind: "other" } : undefined;
    if (code === 0x5b) return this.array(depth);
    if (code === 0x2f) return { kind: "name", name: this.name() };
    if (code < 0 || !isRegular(code)) return undefined;
    const start = this.at;
    while (this.at < this.text.length && isRegular(this.code())) this.at++;
    const word = this.text.slice(start, this.at);
    return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) ? { kind: "number", value: Number(word) } : { kind: "other" };
  }

  dict(depth: number): PdfValue | undefined {
    this.at += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipSpace();
      if (this.code() === 0x3e && this.code(1) === 0x3e) {
        this.at += 2;
        return { kind: "dict", entries };
      }
      if (this.code() !== 0x2f) return undefined;
      const key = this.name();
      const value = this.value(depth + 1);
      if (!value) return undefined;
      entries.set(key, value);
    }
  }

  private array(depth: number): PdfValue | undefined {
    this.at++;
    const items: PdfValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.code() === 0x5d) {
        this.at++;
        return { kind: "array", items };
      }
      const item = this.value(depth + 1);
      if (!item) return undefined;
      items.push(item);
    }
  }

  /** `/Name` with its #xx escapes decoded. */
  private name(): string {
    this.at++;
    const start = this.at;
    while (this.at < this.text.length && isRegular(this.code())) this.at++;
    return this.text.slice(start, this.at).replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }

  /** `( … )` with nested parentheses and backslash escapes. */
  private literalString(): boolean {
    let depth = 0;
    for (; this.at < this.text.length; this.at++) {
      const code = this.code();
      if (code === 0x5c) this.at++;
      else if (code === 0x28) depth++;
      else if (code === 0x29 && --depth === 0) {
        this.at++;
        return true;
      }
    }
    return false;
  }

  private skipPast(code: number): boolean {
    const end = this.text.indexOf(String.fromCharCode(code), this.at);
    if (end < 0) return false;
    this.at = end + 1;
    return true;
  }
}

/** The dictionary that fills `text` exactly (leading and trailing whitespace aside), or undefined. */
export function parseDictionary(text: string): ReadonlyMap<string, PdfValue> | undefined {
  const reader = new Reader(text);
  reader.skipSpace();
  if (!text.startsWith("<<", reader.at)) return undefined;
  const parsed = reader.dict(0);
  reader.skipSpace();
  return parsed?.kind === "dict" && reader.at === text.length ? parsed.entries : undefined;
}
