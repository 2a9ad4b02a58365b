// Slack's `text` and mrkdwn fields treat &, < and > as markup; escaping them shows the
// characters as written and leaves no way to form a mention or a link.

export function escapeSlackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Plain text shown verbatim in a code block (backtick runs cannot close it early). */
export function codeBlock(text: string): string {
  return `\`\`\`${escapeSlackText(text).replace(/```/g, "`\u200b``")}\`\`\``;
}
