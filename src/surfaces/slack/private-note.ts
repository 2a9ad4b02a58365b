// The three ways Slack carries a note, each saying whether Slack took it (the core's
// private-note rule picks between them): an ephemeral message in the thread (only to members of
// the channel), a DM from the app, a message in the thread for everyone. Never throw.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { postWithRetry } from "./post-answer.js";

export interface NoteTarget {
  readonly channel: string;
  readonly threadTs?: string;
}

const thread = (target: NoteTarget) => (target.threadTs ? { thread_ts: target.threadTs } : {});

export async function whisper(client: webApi.WebClient, logger: Logger, target: NoteTarget, user: string, text: string): Promise<boolean> {
  try {
    await client.chat.postEphemeral({ channel: target.channel, user, text, ...thread(target) });
    return true;
  } catch (error) {
    logger.info({ err: error, user }, "Slack refused an ephemeral message");
    return false;
  }
}

export async function directMessage(client: webApi.WebClient, logger: Logger, user: string, text: string): Promise<boolean> {
  try {
    await client.chat.postMessage({ channel: user, text });
    return true;
  } catch (error) {
    logger.info({ err: error, user }, "Slack refused a direct message");
    return false;
  }
}

export async function postInThread(client: webApi.WebClient, logger: Logger, target: NoteTarget, text: string): Promise<boolean> {
  try {
    await postWithRetry(() => client.chat.postMessage({ channel: target.channel, text, ...thread(target) }));
    return true;
  } catch (error) {
    logger.error({ err: error, channel: target.channel, text }, "could not post a reply");
    return false;
  }
}
