// The pages a person sees while installing the app: the "Add to Slack" page, and what happened
// at the end (installed, or why not and what to do). Plain HTML that works without scripts; every
// text that came from outside is escaped.
import type { ServerResponse } from "node:http";

export const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>\n`;
}

/** The install page: one link to Slack's authorize page (with this install's state). */
export function addToSlackPage(authorizeUrl: string): string {
  return page("Add the bot to a Slack workspace", `<p><a href="${escapeHtml(authorizeUrl)}">Add to Slack</a></p>`);
}

export function sendPage(response: ServerResponse, status: number, title: string, lines: readonly string[]): void {
  if (response.headersSent) return void response.end();
  response
    .writeHead(status, { ...PAGE_HEADERS, "Content-Type": "text/html; charset=utf-8" })
    .end(page(title, lines.map((line) => `<p>${escapeHtml(line)}</p>`).join("")));
}
