// The slash commands, as Discord's API takes them: registered by register-commands.ts,
// answered by slash-commands.ts.
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
  type RESTPutAPIApplicationCommandsJSONBody,
} from "discord.js";

export const ASK = "ask";
export const MEMORY = "memory";
export const FORGET = "forget";
export const TOOLS = "tools";
export const AUDIT = "audit";
export const SETTINGS = "settings";
export const FEEDBACK = "feedback";
export const QUESTION_OPTION = "question";

/** Servers and the bot's DMs; installed to servers. */
const WHERE = {
  contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
  integration_types: [ApplicationIntegrationType.GuildInstall],
};

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
    ],
    ...WHERE,
  },
  {
    name: MEMORY,
    type: ApplicationCommandType.ChatInput,
    description: "Show what the agent remembers about this conversation (only you see it)",
    ...WHERE,
  },
  { name: FORGET, type: ApplicationCommandType.ChatInput, description: "Clear what the agent remembers about this conversation", ...WHERE },
  {
    name: TOOLS,
    type: ApplicationCommandType.ChatInput,
    description: "List the agent's tools: read or write, and which MCP server each comes from (only you see it)",
    ...WHERE,
  },
  {
    name: AUDIT,
    type: ApplicationCommandType.ChatInput,
    description: "Admins: the latest 20 approvals, decisions and writes (only you see it)",
    ...WHERE,
  },
  {
    name: SETTINGS,
    type: ApplicationCommandType.ChatInput,
    description: "The agent's settings in this channel and your limits left (only you see it)",
    ...WHERE,
  },
  {
    name: FEEDBACK,
    type: ApplicationCommandType.ChatInput,
    description: "Approvers: 👍 / 👎 totals and the latest 20 votes with links (only you see it)",
    ...WHERE,
  },
];
