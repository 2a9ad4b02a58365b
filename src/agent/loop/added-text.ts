// How a message the person sent while the run worked reads to the model: theirs, and said to
// come after the question, so the model takes it as a correction or an addition to it.
import type { AddedNote } from "../../contracts/types.js";

export function addedText(note: AddedNote): string {
  return note.kind === "edited" ? `The person edited their question to: ${note.text}` : `The person added: ${note.text}`;
}
