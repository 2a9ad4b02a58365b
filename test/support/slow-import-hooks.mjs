// Module loading hooks for a bot child process (see slow-imports.mjs): the module whose URL
// contains `pattern` takes `delayMs` longer to load, like a cold disk or a loaded machine.
let slow = { pattern: "", delayMs: 0 };

export function initialize(data) {
  slow = data;
}

export async function load(url, context, nextLoad) {
  if (slow.pattern && url.includes(slow.pattern)) await new Promise((resolve) => setTimeout(resolve, slow.delayMs));
  return nextLoad(url, context);
}
