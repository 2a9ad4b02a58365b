import { afterEach, describe, expect, it } from "vitest";
import { call, say } from "../../support/model-scripted.js";
import { createLongTermMemory } from "../../../src/memory/long-term-memory.js";
import { silentLogger } from "../../../src/logger.js";
import { parseButton } from "../../../src/adapters/discord/buttons.js";
import { until } from "../../support/until.js";
import { messageBodies, originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";

const NO_PINGS = { parse: [], replied_user: false };

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("Discord /ask", () => {
  it("defers at once, shows progress, answers in the reply and puts the trace in a thread on it", async () => {
    harness = await startDiscordHarness({ script: [call("calculator", { expression: "6*7" }), say("The answer is 42.")] });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "What is 6*7?" } });

    await fake.waitForCall("PATCH", originalPath(fake, token), (request) => request.body.content === "The answer is 42.");
    const [callback, ...more] = fake.callsTo("POST", /\/callback$/);
    expect(more).toHaveLength(0);
    expect(callback!.body).toEqual({ type: 5, data: { flags: 0 } });
    const edits = fake.callsTo("PATCH", originalPath(fake, token)).map((request) => request.body.content);
    expect(edits[0]).toMatch(/^⏳/);
    expect(edits.at(-1)).toBe("The answer is 42.");

    const reply = fake.messagesIn(fake.general.id).find((message) => message.content === "The answer is 42.")!;
    const thread = await fake.waitForCall("POST", new RegExp(`^/channels/${fake.general.id}/messages/${reply.id}/threads$`));
    expect(thread.body.name).toBe("Trace: What is 6*7?");
    const trace = await fake.waitForCall("POST", new RegExp(`^/channels/${reply.id}/messages$`));
    expect(trace.body.content).toContain("calculator");
    expect(trace.body.content).toContain("42");
    expect(messageBodies(fake.calls).every((body) => JSON.stringify(body.allowed_mentions) === JSON.stringify(NO_PINGS))).toBe(true);
  });

  it("records under the run the message its answer was posted as, so a replay of the run does not answer again", async () => {
    harness = await startDiscordHarness({ script: [say("The answer is 42.")] });
    const { fake, alice, store } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "What is 6*7?" } });
    const answered = await fake.waitForCall("PATCH", originalPath(fake, token), (request) => request.body.content === "The answer is 42.");
    const button = (answered.body.components as Array<{ components: Array<{ custom_id: string }> }>)[0]!.components[0]!.custom_id;
    const parsed = parseButton(button);
    const runId = parsed?.kind === "feedback" ? parsed.runId : "";
    const reply = fake.messagesIn(fake.general.id).find((message) => message.content === "The answer is 42.")!;
    await until(async () => (await store.get(`answered:${runId}`)) !== undefined, "the answer's mark");
    expect(await store.get(`answered:${runId}`)).toMatchObject({ messageId: reply.id });
  });

  it("never pings what the model wrote and keeps every message within 2,000 characters", async () => {
    const long = `@everyone @here <@&123456789012345678> <@123456789012345679>\n${"All work and no play. ".repeat(300)}\n\`\`\`js\n${"console.log(1);\n".repeat(100)}\`\`\``;
    harness = await startDiscordHarness({ script: [say(long)] });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "write a lot" } });

    await fake.waitForCall("PATCH", originalPath(fake, token), (request) => String(request.body.content).startsWith("@everyone"));
    await fake.waitForCall("POST", webhookPath(fake, token), (request) => String(request.body.content).endsWith("```"));
    const bodies = messageBodies(fake.calls);
    expect(bodies.length).toBeGreaterThan(2);
    for (const body of bodies) {
      expect(body.allowed_mentions).toEqual(NO_PINGS);
      expect(String(body.content).length).toBeLessThanOrEqual(2000);
    }
    const followUps = fake.callsTo("POST", webhookPath(fake, token)).map((request) => String(request.body.content));
    for (const part of followUps) expect((part.match(/```/g) ?? []).length % 2).toBe(0);
  });

  it("answers a runaway model with its summary and a line naming the guard", async () => {
    let n = 0;
    harness = await startDiscordHarness({
      script: [],
      env: { AGENT_MAX_STEPS: "3" },
      whenExhausted: (request) =>
        request.tools.length === 0
          ? say("I kept calculating and found 1, 2 and 3 but never an answer.")
          : call("calculator", { expression: `${++n}+0` }),
    });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "count forever" } });

    const final = await fake.waitForCall("PATCH", originalPath(fake, token), (request) =>
      String(request.body.content).includes("never an answer"),
    );
    const [summary, guardLine] = String(final.body.content).split("\n\n");
    expect(summary).toBe("I kept calculating and found 1, 2 and 3 but never an answer.");
    expect(guardLine).toMatch(/^⚠️ .*step/i);
    const reply = fake.messagesIn(fake.general.id).find((message) => message.content === final.body.content)!;
    const trace = await fake.waitForCall("POST", new RegExp(`^/channels/${reply.id}/messages$`));
    expect(trace.body.content).toContain("Step 3");
  });

  it("asks for a question when the option is blank", async () => {
    harness = await startDiscordHarness({ script: [] });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "   " } });
    const reply = await fake.waitForCall("PATCH", originalPath(fake, token));
    expect(reply.body.content).toMatch(/Ask me something/);
    expect(harness.model.requests).toHaveLength(0);
  });

  it("answers a command it does not know with an ephemeral note", async () => {
    harness = await startDiscordHarness({ script: [] });
    const { fake, alice } = harness;
    const { id, token } = fake.slashCommand("dance", alice);
    const callback = await fake.waitForCall("POST", new RegExp(`/interactions/${id}/`));
    expect(callback.body).toMatchObject({ type: 5, data: { flags: 64 } });
    const note = await fake.waitForCall("PATCH", originalPath(fake, token));
    expect(note.body.content).toBe("I don't know the command `dance`.");
  });

  it("shows and forgets the conversation's memory, only to the person who asked", async () => {
    harness = await startDiscordHarness({ script: [] });
    const { fake, alice } = harness;
    const memory = createLongTermMemory(harness.store, { maxFacts: 10, logger: silentLogger });
    await memory.remember(`discord:${fake.guild.id}:${fake.general.id}`, [
      "The team deploys on Fridays.",
      "Staging lives at staging.example.internal.",
    ]);

    const shown = fake.slashCommand("memory", alice);
    const listing = await fake.waitForCall("PATCH", originalPath(fake, shown.token));
    expect(fake.callsTo("POST", new RegExp(`/interactions/${shown.id}/`))[0]!.body).toEqual({ type: 5, data: { flags: 64 } });
    expect(listing.body.content).toContain("The team deploys on Fridays.");
    expect(listing.body.content).toContain("(2)");

    const forgotten = fake.slashCommand("forget", alice);
    const done = await fake.waitForCall("PATCH", originalPath(fake, forgotten.token));
    expect(fake.callsTo("POST", new RegExp(`/interactions/${forgotten.id}/`))[0]!.body).toEqual({ type: 5, data: { flags: 64 } });
    expect(done.body.content).toBe("Done: I forgot 2 facts about this conversation.");
    expect(await memory.list(`discord:${fake.guild.id}:${fake.general.id}`)).toEqual([]);

    const again = fake.slashCommand("memory", alice, { channel: fake.random });
    expect((await fake.waitForCall("PATCH", originalPath(fake, again.token))).body.content).toMatch(/don't remember anything/);
  });
});
