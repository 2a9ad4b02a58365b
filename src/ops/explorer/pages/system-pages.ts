// Audit (the newest entries of the audit log), Tools (built in and MCP, each server up or down
// and why, as the service lists them, and who connected which server behind OAuth, since when)
// and Settings (what is in force, secrets left out).
import type { ToolServerListing } from "../../../tools/tool-list.js";
import { namesARun } from "../../../governance/command-text.js";
import type { PageHandler } from "../explorer-deps.js";
import { html, outsideLink, page, table, when } from "../html.js";

const AUDIT_SHOWN = 200;

export const auditPage: PageHandler = async ({ csrf, deps }) => {
  const entries = await deps.audit.list({ limit: AUDIT_SHOWN });
  const body = table(
    ["When (UTC)", "What", "Tool", "Who", "Decision / outcome", "Run", "Conversation"],
    entries.map((entry) => [
      when(entry.at),
      entry.kind.replaceAll("_", " "),
      entry.tool ?? (entry.form ? `${entry.form.kind} of ${entry.form.server}` : ""),
      entry.decidedBy ? (entry.decidedBy.name ?? entry.decidedBy.id) : (entry.requester.name ?? entry.requester.id),
      entry.decision ??
        entry.outcome ??
        (entry.form ? [entry.form.action, entry.form.reason].filter(Boolean).join(": ") : undefined) ??
        entry.result ??
        "",
      // A schedule's own entries carry its id, which has no run page.
      namesARun(entry) ? html`<a href="${`/admin/runs/${encodeURIComponent(entry.runId)}`}">${entry.runId}</a>` : `schedule ${entry.runId}`,
      outsideLink(entry.link, entry.conversationKey),
    ]),
    "audit",
  );
  return {
    status: 200,
    type: "html",
    body: page({ title: "Audit", csrf, current: "/admin/audit" }, html`<p>The newest ${AUDIT_SHOWN} entries.</p>${body}`),
  };
};

/** A server's state in a word, and why it is not up. */
function serverState(server: ToolServerListing): readonly [string, string] {
  const { state } = server;
  if (state.kind === "up") return ["up", `via ${state.via}`];
  if (state.kind === "starting") return ["starting", ""];
  return [state.kind, state.reason];
}

export const toolsPage: PageHandler = async ({ csrf, deps }) => {
  const groups = deps.tools();
  const connections = deps.connections ? await deps.connections() : [];
  const servers = groups[0]?.tools.servers ?? [];
  const body = html`${
    servers.length === 0
      ? ""
      : html`<h2>MCP servers</h2>${table(
          ["Server", "State", "Why", "Tools"],
          servers.map((server) => {
            const [state, why] = serverState(server);
            return [server.name, state, why, String(server.tools)];
          }),
          "servers",
        )}`
  }${groups.map(
    (group) =>
      html`<h2>${group.surface}</h2>${table(
        ["Tool", "From", "Effect", "After policy", "State"],
        group.tools.tools.map((tool) => [
          tool.name,
          tool.server ? `MCP server ${tool.server}` : "built in",
          tool.effect,
          tool.afterPolicy,
          tool.up ? "up" : "down",
        ]),
        "tools",
      )}`,
  )}${
    deps.connections
      ? html`<h2>People's connections</h2>${
          connections.length === 0
            ? html`<p class="empty">Nobody has connected an MCP server that acts as them.</p>`
            : table(
                ["Person", "Where", "Server", "Connected since (UTC)"],
                connections.map((entry) => [
                  entry.owner.person,
                  entry.owner.workspace ? `${entry.owner.surface} ${entry.owner.workspace}` : entry.owner.surface,
                  entry.server,
                  when(entry.connectedAt),
                ]),
                "connections",
              )
        }`
      : ""
  }`;
  return { status: 200, type: "html", body: page({ title: "Tools", csrf, current: "/admin/tools" }, body) };
};

export const settingsPage: PageHandler = ({ csrf, deps }) => {
  const view = deps.settings();
  const body = html`${table(
    ["Setting", "Value"],
    view.settings.map(([name, value]) => [name, value]),
    "settings",
  )}
<h2>Settings file</h2>${view.file ? html`<p>${view.file.path}</p><pre>${JSON.stringify(view.file.content, null, 2)}</pre>` : html`<p class="empty">None: everyone may use the bot everywhere, with no limits.</p>`}`;
  return { status: 200, type: "html", body: page({ title: "Settings in force", csrf, current: "/admin/settings" }, body) };
};
