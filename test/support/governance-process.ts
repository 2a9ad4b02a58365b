// Run as its own Node process by the governance tests: a real runner with the settings in argv[3]
// (JSON) on the store at argv[2]. `run <user> <tokens>`: one question to a scripted model that
// reports that many tokens of usage; `admit <user>`: only the admission. Prints the result as JSON.
import { say, ScriptedModel } from "./model-scripted.js";
import { governedService, settingsOf, slackOrigin } from "./governance-harness.js";

const [url, settingsJson, action, user, tokens] = process.argv.slice(2);
const model = new ScriptedModel([say("ok", { promptTokens: Number(tokens ?? 0), completionTokens: 0 })]);
const harness = await governedService({ model, storeUrl: url!, settings: settingsOf(JSON.parse(settingsJson!)) });
const origin = slackOrigin(user!);
if (action === "run") {
  const outcome = await harness.service.ask({ origin, text: "hello" }, () => {});
  process.stdout.write(
    JSON.stringify({ answer: outcome.status === "answered" ? outcome.answer : "paused", modelCalls: model.requests.length }),
  );
} else {
  process.stdout.write(JSON.stringify(await harness.policy.admit(origin)));
}
await harness.close();
