// A Markdown page as GitHub renders it, for the docs' link test: the relative links it holds
// (inline, images and reference definitions, never inside code) and the anchors its headings
// give. Headings are ATX (`## …`), the only kind these pages use: a Setext heading's anchor is
// not known here, so a link to one is reported, never passed unchecked.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative } from "node:path";
import { headingAnchor } from "../../src/config/docs-anchor.js";

export interface PageLink {
  /** 1-based, where the link's `[` is. */
  readonly line: number;
  /** As written: `path`, `path#anchor` or `#anchor`. */
  readonly target: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A code span: a run of backticks, then anything up to a run of the same length, not across a blank line. */
const CODE_SPAN = /(?<!`)(`+)(?!`)((?:[^`\n]|\n(?![ \t]*\n)|`)+?)(?<!`)\1(?!`)/g;
const INLINE_LINK = /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s()]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*(<[^>\n]*>|\S+)/gm;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
/** `https:`, `mailto:`…: a link that leaves the repository. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The lines of fenced code blocks (fences included) as blank lines: nothing in them is a link or a heading. */
function withoutCodeBlocks(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const opening = FENCE.exec(line)?.[1];
      if (fence === undefined) {
        if (opening === undefined) return line;
        fence = opening;
        return "";
      }
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening) fence = undefined;
      return "";
    })
    .join("\n");
}

/** Code spans as spaces of the same length (line breaks kept), so a match's index still gives its line. */
function withoutCodeSpans(markdown: string): string {
  return markdown.replace(CODE_SPAN, (span) => span.replace(/[^\n]/g, " "));
}

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** Every link on the page that stays in the repository, in page order. */
export function relativeLinks(markdown: string): PageLink[] {
  const prose = withoutCodeSpans(withoutCodeBlocks(markdown));
  const written = [...prose.matchAll(INLINE_LINK), ...prose.matchAll(REFERENCE_DEFINITION)];
  return written
    .map((match) => ({ line: lineAt(prose, match.index), target: match[1]!.replace(/^<(.*)>$/, "$1") }))
    .filter((link) => !SCHEME.test(link.target) && !link.target.startsWith("//"))
    .sort((a, b) => a.line - b.line);
}

/** A heading's text as GitHub shows it: code spans keep their content, links their text; tags and emphasis marks go. */
function headingText(heading: string): string {
  const prose = (text: string) =>
    text
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]*>/g, "")
      .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, "$1");
  let text = "";
  let end = 0;
  for (const span of heading.matchAll(CODE_SPAN)) {
    text += prose(heading.slice(end, span.index)) + span[2]!.replace(/^ (.*[^ ].*) $/, "$1");
    end = span.index + span[0].length;
  }
  return (text + prose(heading.slice(end))).trim();
}

/** The anchors the page's headings give, a repeated one numbered as GitHub numbers it. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of withoutCodeBlocks(markdown).split("\n")) {
    const heading = ATX_HEADING.exec(line);
    if (!heading) continue;
    const anchor = headingAnchor(headingText(heading[1] ?? ""));
    let numbered = anchor;
    for (let repeat = 1; anchors.has(numbered); repeat += 1) numbered = `${anchor}-${repeat}`;
    anchors.add(numbered);
  }
  return anchors;
}

/** Why `target`, linked from `page`, leads nowhere; undefined when it leads somewhere. */
function whyDead(root: string, page: string, target: string): string | undefined {
  const [path = "", anchor] = target.split(/#(.*)/s);
  const file = path === "" ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
  const shown = relative(root, file);
  if (!existsSync(file)) return `no file ${shown}`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || extname(file) !== ".md") return `${shown} is not a Markdown page, so it has no anchors`;
  return headingAnchors(readFileSync(file, "utf8")).has(decodeURIComponent(anchor)) ? undefined : `no heading in ${shown} gives #${anchor}`;
}

/**
 * The links of `page` (a path under `root`) that lead nowhere, each as `page:line: target (why)`:
 * a file or folder that does not exist, or an anchor no heading of the target page gives.
 */
export function deadLinks(root: string, page: string): string[] {
  return relativeLinks(readFileSync(join(root, page), "utf8")).flatMap(({ line, target }) => {
    const why = whyDead(root, page, target);
    return why === undefined ? [] : [`${page}:${line}: ${target} (${why})`];
  });
}
