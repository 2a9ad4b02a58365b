// A chain of work that grows while it is awaited (entries queued behind each other, timers that
// arm the next fire): waiting for it means waiting until a pass ends with nothing added.

/** Resolves once the promise `current()` gives has settled and no newer one replaced it meanwhile. */
export async function chainSettled(current: () => Promise<unknown>): Promise<void> {
  let seen: Promise<unknown>;
  do {
    seen = current();
    await seen;
  } while (seen !== current());
}
