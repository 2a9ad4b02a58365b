// Text the model wrote must never ping a crowd in Slack. Slack's special mentions
// (<!here>, <!channel>, <!everyone>, <!subteam^…>) become plain look-alikes, and bare
// @here / @channel / @everyone get an invisible word joiner so no client links them.
// Dates (<!date^…>) are harmless and kept. User mentions (<@U…>) are left alone: they name
// one person, not a crowd.

const WORD_JOINER = "\u2060";
const SPECIAL_MENTION = /<!([^<>|]*)(?:\|([^<>]*))?>/g;
const BARE_CROWD = /@(here|channel|everyone)\b/gi;

function plainLabel(command: string, label: string | undefined): string {
  if (label !== undefined && label.trim() !== "") return label.startsWith("@") ? label : `@${label}`;
  if (command.startsWith("subteam^")) return "@group";
  return `@${command}`;
}

function replaceSpecialMentions(text: string): string {
  return text.replace(SPECIAL_MENTION, (whole: string, command: string, label: string | undefined) =>
    command.startsWith("date^") ? whole : plainLabel(command, label),
  );
}

/** Pure; idempotent. The result contains no special mention Slack would notify on. */
export function neutraliseMentions(text: string): string {
  let current = text;
  for (;;) {
    const next = replaceSpecialMentions(current);
    if (next === current) break;
    current = next;
  }
  return current.replace(BARE_CROWD, `@${WORD_JOINER}$1`);
}
