// The order a platform gave a person's messages (Slack's ts, Discord's snowflake id: decimal
// digits, with a fraction on Slack), which a run of their conversation takes them in. The order
// they were recorded in is not it: a platform delivers events concurrently, and a slow read of
// one (a channel Discord's cache does not know) lets the next overtake it.

/** Pure: negative when `a` was sent before `b`; ids of one platform compared as the numbers they are. */
export function compareSentOrder(a: string, b: string): number {
  const [aWhole = "", aFraction = ""] = a.split(".");
  const [bWhole = "", bFraction = ""] = b.split(".");
  if (aWhole.length !== bWhole.length) return aWhole.length - bWhole.length;
  if (aWhole !== bWhole) return aWhole < bWhole ? -1 : 1;
  const width = Math.max(aFraction.length, bFraction.length);
  const [x, y] = [aFraction.padEnd(width, "0"), bFraction.padEnd(width, "0")];
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Pure: the order of two recorded messages; one without the platform's order (an older record) by when it was recorded. */
export function sentBefore(
  a: { readonly receivedAt: number; readonly task: { readonly sentOrder?: string | undefined } },
  b: { readonly receivedAt: number; readonly task: { readonly sentOrder?: string | undefined } },
): number {
  return a.task.sentOrder !== undefined && b.task.sentOrder !== undefined
    ? compareSentOrder(a.task.sentOrder, b.task.sentOrder)
    : a.receivedAt - b.receivedAt;
}
