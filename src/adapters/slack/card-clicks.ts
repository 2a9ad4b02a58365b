// The buttons of the bot's private cards on Slack (a server's form, a held answer) and the clicks
// on them. A card goes to one person alone, often as an ephemeral message, whose click carries no
// `message`: so each button's value names what the card is about and the thread it was shown for,
// and the click is read back from that value (untrusted, checked with zod) into who clicked where.
import type { App } from "@slack/bolt";
import { z } from "zod";
import type { Logger } from "../../logger.js";
import { spotOf } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import { refOfContext, type WorkspaceRef } from "./install/workspace-ref.js";
import { jsonValue } from "./slack-api.js";
import { enterpriseOf } from "./slack-clicks.js";
import { conversationAt, type ThreadPlace } from "./slack-place.js";
import type { SlackClicked } from "./slack-refs.js";

/** A card's buttons: each action id with what pressing it means. */
export type CardActions<A> = Readonly<Record<string, A>>;

/** A card's reading of its buttons' values: what it is about (`about`, its own keys) and where it was shown. */
export const cardValueSchema = <S extends z.ZodRawShape>(about: S) =>
  z.object({ ...about, c: z.string().min(1).max(40), t: z.string().max(40).optional() });

type Where = { readonly c: string; readonly t?: string | undefined };

/** A button's value: `about` (the card's own keys) and the channel and thread the card was shown for. */
export function cardValue(about: Readonly<Record<string, string>>, place: Pick<ThreadPlace, "channel" | "replyThreadTs">): string {
  return JSON.stringify({ ...about, c: place.channel, ...(place.replyThreadTs ? { t: place.replyThreadTs } : {}) });
}

const Click = z.object({
  trigger_id: z.string().min(1).optional(),
  team: z.object({ id: z.string().min(1) }).nullish(),
  user: z.object({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional(), team_id: z.string().optional() }),
  actions: z.array(z.object({ value: z.string().optional() })).min(1),
});

export interface CardClick<A, V> {
  readonly at: Spot;
  readonly clicked: SlackClicked;
  /** What the pressed button means. */
  readonly pressed: A;
  /** Its value, as the card's schema read it. */
  readonly value: V;
}

/** A click on the button `action` of a card; undefined when the payload, the action or the value can't be read. */
export function readCardClick<A, V extends Where>(
  actions: CardActions<A>,
  valueSchema: z.ZodType<V>,
  action: string,
  body: unknown,
  workspace?: WorkspaceRef,
): CardClick<A, V> | undefined {
  const parsed = Click.safeParse(body);
  const pressed = actions[action];
  const value = parsed.success ? jsonValue(valueSchema, parsed.data.actions[0]!.value) : undefined;
  if (!parsed.success || pressed === undefined || !value) return undefined;
  const { team: teamOf, user, trigger_id } = parsed.data;
  const conversation = conversationAt({
    team: teamOf?.id ?? user.team_id ?? "",
    channel: value.c,
    traceThreadTs: value.t ?? "",
    ...(value.t ? { replyThreadTs: value.t } : {}),
    ...enterpriseOf(workspace),
  });
  const name = user.username ?? user.name;
  const at = spotOf("slack", conversation, { id: user.id, ...(name ? { name } : {}), roles: [] });
  const clicked: SlackClicked = {
    channel: value.c,
    ts: value.t ?? "",
    ...(trigger_id ? { triggerId: trigger_id } : {}),
    ...(workspace ? { workspace } : {}),
  };
  return { at, clicked, pressed, value };
}

/** Acknowledges each click on a card's buttons and hands it to `take`; one that can't be read is logged as `what`. */
export function listenForCard<A, V extends Where>(
  bolt: App,
  card: { readonly actions: CardActions<A>; readonly value: z.ZodType<V>; readonly what: string },
  logger: Logger,
  take: (click: CardClick<A, V>) => Promise<void>,
): void {
  for (const action of Object.keys(card.actions)) {
    bolt.action(action, async ({ ack, body, context }) => {
      await ack();
      const click = readCardClick(card.actions, card.value, action, body, refOfContext(context));
      if (click) void take(click);
      else logger.warn({ action }, `ignored a malformed ${card.what} click`);
    });
  }
}
