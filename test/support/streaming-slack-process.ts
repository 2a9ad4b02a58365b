// A Slack bot process in miniature for the crash tests of streamed answers: the Slack harness
// (Bolt over HTTP, the real service) on the store named on the command line, against the fake
// Slack of the test, with a model that streams every answer word by word, `pace` ms apart. It
// prints one JSON line once it takes events: `{"eventsUrl": …}`. A new process on the same store
// takes up what an earlier one left unfinished. `tool`: each run's first step says a few words and
// calls the calculator (a step trace streams too), its second answers.
//   streaming-slack-process.ts <slack-api-url> <store-url> <pace-ms> <answer> [tool]
import { startSlackHarness } from "./slack-harness.js";
import { ScriptedModel, say, type ScriptStep } from "./model-scripted.js";
import { streamingModel } from "./streaming-model.js";

const [slackApiUrl, storeUrl, pace, answer, steps] = process.argv.slice(2);
if (!slackApiUrl || !storeUrl || !pace || !answer)
  throw new Error("usage: streaming-slack-process.ts <slack-api-url> <store-url> <pace-ms> <answer> [tool]");
const aside = { text: "Let me work it out.", calls: [{ name: "calculator", args: { expression: "6*7" } }] };
const step: ScriptStep = steps === "tool" ? (request) => (request.messages.at(-1)?.role === "tool" ? say(answer) : aside) : say(answer);
const model = streamingModel(new ScriptedModel([], { whenExhausted: step }), { pieceMs: Number(pace) });
const harness = await startSlackHarness({ model, env: { SLACK_API_URL: slackApiUrl, STORE_URL: storeUrl } });
process.stdout.write(`${JSON.stringify({ eventsUrl: harness.eventsUrl })}\n`);
