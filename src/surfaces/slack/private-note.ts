// Telling one person something only they should see (a refusal after a button click): an
// ephemeral message in the channel, or, where Slack refuses that (someone who is not a member,
// e.g. a Slack Connect guest: user_not_in_channel), a DM from the app.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";

export interface NoteTarget {
  readonly channel: string;
  readonly user: string;
  readonly threadTs?: string;
}

/** Never throws. */
export async function tellPrivately(
  deps: { readonly client: webApi.WebClient; readonly logger: Logger },
  target: NoteTarget,
  text: string,
): Promise<void> {
  try {
    await deps.client.chat.postEphemeral({
      channel: target.channel,
      user: target.user,
      text,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
    });
    return;
  } catch (error) {
    deps.logger.info({ err: error, user: target.user }, "could not send an ephemeral message; sending it as a DM");
  }
  try {
    await deps.client.chat.postMessage({ channel: target.user, text });
  } catch (error) {
    deps.logger.warn({ err: error, user: target.user, text }, "could not tell the person privately");
  }
}
