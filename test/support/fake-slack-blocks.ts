// The fake Slack's check of a message's blocks, as strict as Slack where the bot's buttons are
// concerned: Slack answers invalid_blocks for a button whose text passes 75 characters, a url
// button whose url passes 3,000, a value past 2,000 or an action id past 255, and for an actions
// block holding no element (or more than 25).

const obj = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

function buttonProblems(button: Record<string, unknown>, where: string): string[] {
  const problems: string[] = [];
  const text = obj(button.text);
  if (text?.type !== "plain_text" || typeof text.text !== "string" || text.text.length === 0 || text.text.length > 75)
    problems.push(`${where}.text must be plain_text of 1-75 characters`);
  if (button.url !== undefined && (typeof button.url !== "string" || button.url.length === 0 || button.url.length > 3_000))
    problems.push(`${where}.url must be 1-3000 characters`);
  if (button.value !== undefined && (typeof button.value !== "string" || button.value.length > 2_000))
    problems.push(`${where}.value must be at most 2000 characters`);
  if (typeof button.action_id === "string" && button.action_id.length > 255)
    problems.push(`${where}.action_id must be at most 255 characters`);
  return problems;
}

/** Why Slack would refuse these blocks, one line per problem (none: they are taken). */
export function blockProblems(blocks: readonly unknown[]): string[] {
  return blocks.flatMap((raw, index) => {
    const block = obj(raw) ?? {};
    const where = `blocks[${index}]`;
    const accessory = obj(block.accessory);
    const own = accessory?.type === "button" ? buttonProblems(accessory, `${where}.accessory`) : [];
    if (block.type !== "actions") return own;
    const elements = Array.isArray(block.elements) ? block.elements : [];
    const count = elements.length === 0 || elements.length > 25 ? [`${where}.elements must hold 1-25 elements`] : [];
    const buttons = elements.flatMap((element, at) => {
      const button = obj(element);
      return button?.type === "button" ? buttonProblems(button, `${where}.elements[${at}]`) : [];
    });
    return [...own, ...count, ...buttons];
  });
}
