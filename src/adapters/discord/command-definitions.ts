// The slash commands, as Discord's API takes them: /ask, then one per row of the core's command
// table. Registered by register-commands.ts, answered by discord-events.ts.
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
  type RESTPutAPIApplicationCommandsJSONBody,
} from "discord.js";
import { COMMANDS as CORE_COMMANDS } from "../core/commands.js";

export const ASK = "ask";
export const QUESTION_OPTION = "question";
export const FILE_OPTION = "file";

/** Servers and the bot's DMs; installed to servers. */
const WHERE = {
  contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
  integration_types: [ApplicationIntegrationType.GuildInstall],
};
/** Discord's limit for a command's description. */
const DESCRIPTION_CHARS = 100;
const ONLY_YOU = " (only you see it)";

export const COMMANDS: RESTPutAPIApplicationCommandsJSONBody = [
  {
    name: ASK,
    type: ApplicationCommandType.ChatInput,
    description: "Ask the agent a question; it works through its tools and shows its steps in a thread",
    options: [
      {
        name: QUESTION_OPTION,
        type: ApplicationCommandOptionType.String,
        description: "What you want to know or have done",
        required: true,
        max_length: 4000,
      },
      {
        name: FILE_OPTION,
        type: ApplicationCommandOptionType.Attachment,
        description: "A file for the question (an image, a log, a PDF…)",
        required: false,
      },
    ],
    ...WHERE,
  },
  // Every other command answers only the person who asked.
  ...CORE_COMMANDS.map((command) => ({
    name: command.name,
    type: ApplicationCommandType.ChatInput as const,
    description: (command.summary + ONLY_YOU).slice(0, DESCRIPTION_CHARS),
    ...(command.options
      ? {
          options: command.options.map((option) => ({
            name: option.name,
            type: ApplicationCommandOptionType.String as const,
            description: option.description.slice(0, DESCRIPTION_CHARS),
            required: true,
            max_length: option.maxLength,
          })),
        }
      : {}),
    ...WHERE,
  })),
];
