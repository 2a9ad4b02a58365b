// `save_note`, the offline demo's one write: it appends a line to a scratch file in the data
// folder (data/demo-notes.txt), so a newcomer sees a write wait for approval with nothing set up.
// It is given to runs only while the demo model answers (src/app.ts); a real model never sees it.
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import type { Tool } from "../../contracts/types.js";

export const DEMO_NOTE_TOOL = "save_note";
export const DEMO_NOTES_FILE = "demo-notes.txt";

const NoteArgs = z.object({
  text: z.string().trim().min(1, "expects the note's text").max(500, "expects at most 500 characters").describe("the note, one line"),
});

type NoteArgs = z.infer<typeof NoteArgs>;

/** The tool that appends to `path` (created with its folder on first use). */
export function createDemoNoteTool(path: string): Tool<NoteArgs> {
  return {
    name: DEMO_NOTE_TOOL,
    description: `Appends one line to the demo's scratch file ${path}. A harmless write that shows how a write waits for approval.`,
    schema: NoteArgs,
    effect: "write",
    async execute({ text }) {
      await mkdir(dirname(path), { recursive: true });
      const line = text.replace(/\s+/g, " ");
      await appendFile(path, `${new Date().toISOString()} ${line}\n`);
      return `Saved to ${path}: ${line}`;
    },
  };
}
