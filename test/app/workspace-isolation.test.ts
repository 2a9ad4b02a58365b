// One deployment installed in two Slack workspaces keeps each apart, with the product as startApp
// wires it: what one workspace's people told the bot (facts), its runs and its usage are invisible
// from the other, through the chat commands (`memory`, `usage` for that workspace's own admin) and
// through the explorer's API filtered by workspace.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { textReply, type RecordedRequest } from "../support/fake-openai-server.js";
import type { FakeSlack } from "../support/fake-slack.js";
import { ALPHA, BETA, install } from "../support/slack-installs.js";
import { channelOf, startInstalledProduct, type InstalledProduct } from "../support/installed-product-harness.js";
import { temporaryFolder, type TemporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";

let product: InstalledProduct | undefined;
let settings: TemporaryFolder | undefined;
afterEach(async () => {
  await product?.close();
  await settings?.remove();
  product = undefined;
  settings = undefined;
});

/** Alpha's runs cost 1,120 tokens (1,010 for the answer, 110 for the fact), Beta's 77 (55 and 22). */
function respond(request: RecordedRequest) {
  const text = JSON.stringify(request.body.messages);
  const alpha = text.includes("Anna");
  if (request.body.response_format?.type === "json_object")
    return textReply(
      JSON.stringify({ facts: [alpha ? "The person is called Anna." : "The person is called Bert."] }),
      alpha ? { prompt: 100, completion: 10 } : { prompt: 20, completion: 2 },
    );
  return textReply(alpha ? "Hello Anna." : "Hello Bert.", alpha ? { prompt: 1_000, completion: 10 } : { prompt: 50, completion: 5 });
}

/** What `user` was shown privately (ephemeral messages). */
const privateText = (slack: FakeSlack, user: string) =>
  slack
    .callsTo("chat.postEphemeral")
    .filter((call) => call.args.user === user)
    .map((call) => String(call.args.text))
    .join("\n");

describe("two workspaces of one deployment", () => {
  it("see none of each other's facts, runs and usage, in the chat and in the explorer", async () => {
    settings = await temporaryFolder();
    const file = join(settings.path, "bot.settings.json");
    await writeFile(
      file,
      JSON.stringify({ workspaces: { T0ALPHA: { access: { admins: ["U0ANNA"] } }, T0BETA: { access: { admins: ["U0BERT"] } } } }),
    );
    product = await startInstalledProduct(respond, { MEMORY_EXTRACT_FACTS: "true", BOT_SETTINGS: file });
    const running = product;
    const { slack } = running;
    expect((await install(running.base, slack, ALPHA)).status).toBe(200);
    expect((await install(running.base, slack, BETA)).status).toBe(200);
    slack.setMembers(channelOf(ALPHA), [ALPHA.botUserId, "U0ANNA"]);
    slack.setMembers(channelOf(BETA), [BETA.botUserId, "U0BERT", "U0BOB"]);

    const alphaThread = await running.mention(ALPHA, "U0ANNA", "I am Anna", "Hello Anna.");
    const betaThread = await running.mention(BETA, "U0BERT", "I am Bert", "Hello Bert.");
    const usageOf = async (workspace: string) =>
      (await running.api(`usage?workspace=${workspace}`)) as { total: { tokens: { prompt: number; completion: number } } };
    const tokensOf = async (workspace: string) => {
      const { prompt, completion } = (await usageOf(workspace)).total.tokens;
      return prompt + completion;
    };
    await until(
      async () => (await tokensOf("slack:T0ALPHA")) === 1_120 && (await tokensOf("slack:T0BETA")) === 77,
      "both workspaces' usage",
    );
    await until(async () => (await running.rowsNaming("The person is called Bert.")).length > 0, "Bert's fact");

    // In the chat: each conversation remembers its own person; each admin sees their own workspace's usage only.
    const privateTo = (user: string) => privateText(slack, user);
    await running.mention(BETA, "U0BERT", "memory", "called Bert", betaThread);
    await running.mention(ALPHA, "U0ANNA", "memory", "called Anna", alphaThread);
    expect(slack.shown((text) => text.includes("called Anna")).map((message) => message.channel)).toEqual([channelOf(ALPHA)]);
    await running.mention(BETA, "U0BERT", "usage", undefined);
    await until(() => /The workspace today: 77 tokens/.test(privateTo("U0BERT")), "Bert's usage");
    expect(privateTo("U0BERT")).toMatch(/This channel today: 77 tokens/);
    await running.mention(ALPHA, "U0ANNA", "usage", undefined);
    await until(() => /The workspace today: 1,120 tokens/.test(privateTo("U0ANNA")), "Anna's usage");
    // Beta's other member is no admin there.
    await running.mention(BETA, "U0BOB", "usage", undefined);
    await until(() => /Only the bot's admins can see usage and cost\./.test(privateTo("U0BOB")), "Bob's refusal");

    // In the explorer, filtered by workspace: Beta's runs, conversations with their facts, and usage name nothing of Alpha.
    const betaRuns = (await running.api("runs?workspace=slack:T0BETA")) as { runs: Array<{ conversationKey: string }> };
    expect(betaRuns.runs.map((run) => run.conversationKey)).toEqual([`slack:T0BETA:C0BETA:${betaThread}`]);
    const alphaRuns = (await running.api("runs?workspace=slack:T0ALPHA")) as { runs: Array<{ conversationKey: string }> };
    expect(alphaRuns.runs.map((run) => run.conversationKey)).toEqual([`slack:T0ALPHA:C0ALPHA:${alphaThread}`]);
    const betaConversations = (await running.api("conversations?workspace=slack:T0BETA")) as {
      conversations: Array<{ conversationKey: string; facts: Array<{ text: string }> }>;
    };
    expect(betaConversations.conversations.map((entry) => [entry.conversationKey, entry.facts.map((fact) => fact.text)])).toEqual([
      [`slack:T0BETA:C0BETA:${betaThread}`, ["The person is called Bert."]],
    ]);
    const betaUsage = await usageOf("slack:T0BETA");
    expect(betaUsage).toMatchObject({
      workspaces: [expect.objectContaining({ id: "slack:T0BETA" })],
      channels: [expect.objectContaining({ id: "C0BETA" })],
      people: [expect.objectContaining({ id: "U0BERT" })],
    });
    for (const seen of [betaRuns, betaConversations, betaUsage]) expect(JSON.stringify(seen)).not.toMatch(/T0ALPHA|C0ALPHA|U0ANNA|Anna/);
    expect(await running.api("runs?workspace=T0BETA").catch((error: Error) => error.message)).toMatch(/400.*expects <surface>:<id>/);
  });

  it("where the settings name no admins, a workspace's admins are those Slack names its admins and owners", async () => {
    product = await startInstalledProduct(respond);
    const running = product;
    const { slack } = running;
    expect((await install(running.base, slack, ALPHA)).status).toBe(200);
    slack.setUser("U0ANNA", { team_id: "T0ALPHA", is_admin: true });
    slack.setUser("U0AMY", { team_id: "T0ALPHA" });
    slack.setMembers(channelOf(ALPHA), [ALPHA.botUserId, "U0ANNA", "U0AMY"]);
    const privateTo = (user: string) => privateText(slack, user);
    await running.mention(ALPHA, "U0ANNA", "usage", undefined);
    await until(() => /Usage \(UTC\)/.test(privateTo("U0ANNA")), "the admin's usage");
    await running.mention(ALPHA, "U0AMY", "usage", undefined);
    await until(() => /Only the bot's admins can see usage and cost\./.test(privateTo("U0AMY")), "the member's refusal");
    expect(slack.callsTo("users.info").map((call) => call.args.user)).toEqual(["U0ANNA", "U0AMY"]);
  });
});
