// The shape of a chat command, one row of the core's command table (commands.ts), apart from the
// table so rows written elsewhere (schedule-commands.ts) import the shape, not the table.
import type { Action } from "../../governance/authority.js";
import type { CoreContext } from "./core-context.js";
import type { Spot } from "./spot.js";

export interface CommandRequest {
  // biome-ignore lint/suspicious/noExplicitAny: a command works the same whatever the surface's click and reference types are.
  readonly ctx: CoreContext<any, any>;
  readonly at: Spot;
  /** What followed the command's name, or its options on Discord. */
  readonly text: string;
  readonly options: Readonly<Record<string, string>>;
}

/** A text option of the command where the platform asks for them one by one (Discord's slash commands). */
export interface CommandOption {
  readonly name: string;
  /** At most 100 characters. */
  readonly description: string;
  readonly maxLength: number;
}

export interface Command {
  readonly name: string;
  /** One line for the console's help and Discord's command list (at most 100 characters). */
  readonly summary: string;
  /** What the authority must allow besides being allowed in the conversation, and what a refused asker is told. */
  readonly guard?: { readonly action: Action; readonly refusal: string | ((request: CommandRequest) => string) };
  /** The answer names people or holds the log: only the asker sees it. */
  readonly private?: boolean;
  /** True when text may follow the name (`schedule <when>: <what>`); otherwise such text makes a question. */
  readonly takesText?: boolean;
  /** Its options on Discord, all required; the answer finds them in `options`. */
  readonly options?: readonly CommandOption[];
  answer(request: CommandRequest): Promise<string>;
}
