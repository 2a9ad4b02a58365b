// Anything can be thrown: a null-prototype object, an error whose message getter or toString
// throws. The loop turns failures into observations and log lines; describing one must not
// become a second failure that rejects the run.

const UNDESCRIBABLE = "an error that could not be described";

/** One line for the model or the person. Never throws. */
export function errorText(error: unknown): string {
  try {
    const text = error instanceof Error ? String(error.message) : String(error);
    return text === "" ? UNDESCRIBABLE : text;
  } catch {
    return UNDESCRIBABLE;
  }
}

/** What a log line may carry: the error itself when it is a real Error (its stack is worth keeping), else its text. */
export function loggableError(error: unknown): unknown {
  try {
    return error instanceof Error && typeof error.message === "string" ? error : errorText(error);
  } catch {
    return UNDESCRIBABLE;
  }
}
