// Where the bot answers someone, shared by the surface interface and the core's inbound flows.
import type { TaskOrigin } from "../../contracts/types.js";
import type { ReplyHandle } from "../../runs/api/task.js";

/** Where the bot answers someone: the conversation (an origin whose requester is the person acting) and, for a live interaction, its handle. */
export interface Spot {
  readonly origin: TaskOrigin;
  readonly reply?: ReplyHandle;
  /** Written inside an existing thread: a schedule made here posts its results in this thread, the one its owner chose. */
  readonly inThread?: boolean;
}
