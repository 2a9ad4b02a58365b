// What kind of file this is, from its type and name before the download (so nothing unreadable
// is fetched) and from its first bytes after it (a PNG named .txt is not read as text).
export type FileKind = "image" | "pdf" | "text" | "other";

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};
const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"]);

const TEXT_TYPES =
  /^(text\/.+|application\/(json|ld\+json|x-ndjson|ndjson|jsonl|xml|yaml|x-yaml|toml|x-toml|javascript|x-javascript|typescript|x-typescript|x-sh|x-shellscript|sql|x-sql|csv|x-csv|x-python|x-ruby|x-perl|x-php|graphql|x-httpd-php|x-tex|x-latex|x-subrip|x-ipynb\+json)|application\/.+\+(json|xml|yaml))$/;

/** Types that say nothing: the extension decides (platforms label many text files so). */
const GENERIC_TYPES = new Set(["", "application/octet-stream", "binary/octet-stream", "application/x-unknown", "application/unknown"]);

const TEXT_EXTENSIONS = new Set(
  (
    "txt text log out err md markdown rst adoc csv tsv json jsonl ndjson yaml yml xml toml ini cfg conf env properties " +
    "html htm css scss sass less svg js mjs cjs jsx ts tsx mts cts vue svelte py pyi rb go rs java kt kts scala groovy gradle " +
    "c h cc cpp cxx hpp hh cs fs swift m mm php pl pm sh bash zsh fish ps1 bat cmd sql r jl lua dart ex exs erl hrl hs clj cljs " +
    "elm ml mli nim zig v tf tfvars hcl proto graphql gql diff patch tex bib srt vtt ipynb lock gitignore dockerignore editorconfig"
  ).split(" "),
);
const TEXT_NAMES = new Set(["dockerfile", "makefile", "procfile", "gemfile", "rakefile", "jenkinsfile", "license", "readme", "changelog"]);

function extensionOf(name: string): string {
  const base = name.toLowerCase().split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot >= 0 ? base.slice(dot + 1) : "";
}

function bareType(mime: string): string {
  return mime.split(";")[0]?.trim().toLowerCase() ?? "";
}

/** By the declared type, else (a generic or missing type) by the name. */
export function declaredKind(name: string, mime: string): FileKind {
  const type = bareType(mime);
  const extension = extensionOf(name);
  if (type in IMAGE_TYPES) return "image";
  if (type === "application/pdf") return "pdf";
  if (TEXT_TYPES.test(type)) return "text";
  if (!GENERIC_TYPES.has(type)) return "other";
  if (IMAGE_EXTENSIONS.has(extension)) return "image";
  if (extension === "pdf") return "pdf";
  const base = name.toLowerCase().split(/[\\/]/).pop() ?? "";
  return TEXT_EXTENSIONS.has(extension) || TEXT_NAMES.has(base) ? "text" : "other";
}

/** True when the file itself is HTML, so an HTML answer is the file and not a login page. */
export function isHtmlFile(name: string, mime: string): boolean {
  const type = bareType(mime);
  return type === "text/html" || type === "application/xhtml+xml" || ["html", "htm", "xhtml"].includes(extensionOf(name));
}

/** What the first bytes show, or undefined when they match no format we read as binary. */
export function sniffedKind(data: Uint8Array): Exclude<FileKind, "text" | "other"> | undefined {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => data[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47) || starts(0xff, 0xd8, 0xff) || starts(0x47, 0x49, 0x46, 0x38)) return "image";
  if (starts(0x52, 0x49, 0x46, 0x46) && data[8] === 0x57 && data[9] === 0x45 && data[10] === 0x42 && data[11] === 0x50) return "image";
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return "pdf";
  return undefined;
}

/** A NUL in the first 8 KB: binary data, whatever the name says. */
export function looksBinary(data: Uint8Array): boolean {
  return data.subarray(0, 8_192).includes(0);
}
