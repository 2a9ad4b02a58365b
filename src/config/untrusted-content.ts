// What the bot does with text it read from someone other than the person asking (another person's
// message, a file, a tool's result): a write that copies from it, and an answer that quotes a place
// not everyone where it is posted can see.
import { area } from "./area.js";
import { oneOf } from "./values.js";
import { variable } from "./variable.js";

export const untrustedContentArea = area({
  title: "Untrusted content",
  about:
    "Text the bot reads from anyone but the person asking reaches the model as data; these say what happens when a write or an answer carries it (see [untrusted content](safety.md)).",
  variables: {
    untrustedWrites: variable("UNTRUSTED_WRITES", oneOf(["warn", "approver", "deny"] as const), {
      default: "warn",
      meaning:
        "a write whose destination came only from content someone else wrote: `warn` shows where it came from on the approval card, `approver` also needs an approver other than the person asking, `deny` refuses the write",
    }),
    crossChannelReads: variable("CROSS_CHANNEL_READS", oneOf(["ask", "private", "allow"] as const), {
      default: "ask",
      meaning:
        "an answer that quotes a place not everyone where it would be posted can see (a private channel, a DM, a private file): `ask` holds it and asks the person privately, `private` sends it to them privately, `allow` posts it",
    }),
  },
});
