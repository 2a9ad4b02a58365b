// Writing the explorer's HTML: everything that comes from a run, a person or a store goes in
// through `escapeHtml` (the `html` tag escapes every value it is given; `raw` marks what is already
// HTML), and every page shares one layout with the navigation and the one stylesheet and script.
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

/** HTML that is already safe (built by these helpers). */
export class Raw {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export const raw = (value: string) => new Raw(value);

type Part = Raw | string | number | undefined | null | false | readonly Part[];

function partText(part: Part): string {
  if (part === undefined || part === null || part === false) return "";
  if (part instanceof Raw) return part.value;
  if (Array.isArray(part)) return part.map(partText).join("");
  return escapeHtml(part);
}

/** A template whose values are escaped unless they are Raw (or lists of Raw). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Raw {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += partText(value) + (strings[index + 1] ?? "");
  });
  return new Raw(out);
}

/** Only http(s) links leave the explorer; anything else is shown as text. */
export function outsideLink(url: string | undefined, label: string): Raw {
  if (!url || !/^https:\/\/[^\s"'<>]+$/.test(url)) return html`${label}`;
  return html`<a href="${url}" rel="noopener noreferrer" target="_blank">${label}</a>`;
}

export const when = (at: number) => new Date(at).toISOString().replace("T", " ").slice(0, 19);
export const count = (value: number) => Math.round(value).toLocaleString("en-US");
export const seconds = (ms: number) => (ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`);

const NAV: ReadonlyArray<readonly [string, string]> = [
  ["/admin/", "Runs"],
  ["/admin/usage", "Usage and cost"],
  ["/admin/conversations", "Conversations"],
  ["/admin/audit", "Audit"],
  ["/admin/tools", "Tools"],
  ["/admin/settings", "Settings"],
];

export interface PageOptions {
  readonly title: string;
  /** The signed-in session's CSRF token (for the sign-out form); none on the sign-in page. */
  readonly csrf?: string;
  readonly current?: string;
}

export function page(options: PageOptions, body: Raw): string {
  const nav = options.csrf
    ? html`<nav>${NAV.map(([href, label]) => html`<a href="${href}"${raw(href === options.current ? ' aria-current="page"' : "")}>${label}</a>`)}
<form method="post" action="/admin/logout" class="inline"><input type="hidden" name="csrf" value="${options.csrf}"><button>Sign out</button></form></nav>`
    : raw("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · bot explorer</title>
<link rel="icon" href="/admin/assets/favicon.svg"><link rel="stylesheet" href="/admin/assets/explorer.css"><script src="/admin/assets/explorer.js" defer></script></head>
<body>${nav}<main><h1>${escapeHtml(options.title)}</h1>
${body}</main></body></html>`;
}

/** A table from rows of cells (already Raw or plain values). */
export function table(head: readonly string[], rows: readonly (readonly Part[])[], className = ""): Raw {
  if (rows.length === 0) return html`<p class="empty">Nothing here yet.</p>`;
  return html`<table class="${className}"><thead><tr>${head.map((cell) => html`<th>${cell}</th>`)}</tr></thead><tbody>${rows.map(
    (row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`,
  )}</tbody></table>`;
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;
