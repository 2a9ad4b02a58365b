// Files in the console: `/attach PATH [question]` reads a file of this machine under the chat
// platforms' limits, and an answer's files are written under data/files/ with safe names.
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { parseCommand } from "../../../src/adapters/console/console-commands.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";

let harness: ConsoleHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const sent = (model: ScriptedModel) => JSON.stringify(model.requests[0]?.messages ?? []);

describe("/attach", () => {
  it("reads a file by a relative path, with the question after it", async () => {
    const model = new ScriptedModel([say("The south sold 30.")]);
    harness = await startConsole({ model });
    await mkdir(join(harness.folder, "exports"));
    await writeFile(join(harness.folder, "exports", "sales.csv"), "region,total\nnorth,12\nsouth,30\n");
    harness.type("/attach exports/sales.csv who sold more?");
    await harness.waitFor("The south sold 30.");
    expect(sent(model)).toContain("south,30");
    expect(sent(model)).toContain("who sold more?");
  });

  it("a file over FILE_MAX_BYTES is not read; the model is told why", async () => {
    const model = new ScriptedModel([say("Too big for me.")]);
    harness = await startConsole({ model, env: { FILE_MAX_BYTES: "1024" } });
    await writeFile(join(harness.folder, "big.log"), "x".repeat(4096));
    harness.type(`/attach "${join(harness.folder, "big.log")}"`);
    await harness.waitFor("Too big for me.");
    expect(sent(model)).toContain("FILE_MAX_BYTES");
    expect(sent(model)).not.toContain("xxxx");
  });

  it("a path that is not there is said at once, and nothing runs", async () => {
    const model = new ScriptedModel([say("never")]);
    harness = await startConsole({ model });
    harness.type("/attach missing.txt what is this?");
    await harness.waitFor("ENOENT");
    expect(model.requests).toHaveLength(0);
  });

  it("/forget removes the conversation's files too, and says so", async () => {
    const model = new ScriptedModel([say("Read.")]);
    harness = await startConsole({ model });
    await writeFile(join(harness.folder, "notes.txt"), "remember me");
    harness.type("/attach notes.txt");
    const read = await harness.waitFor("Read.");
    harness.type("/forget");
    await harness.waitFor("Done: I forgot 1 earlier turn and 1 file of this conversation.", read);
  });

  it("parses quoted paths and a bare /attach", () => {
    expect(parseCommand(`/attach "my notes.txt" sum up`)).toEqual({ kind: "attach", path: "my notes.txt", question: "sum up" });
    expect(parseCommand("/attach ./a.log")).toEqual({ kind: "attach", path: "./a.log", question: "" });
    expect(parseCommand("/attach")).toEqual({ kind: "bad_command", message: "Usage: /attach PATH [question]" });
  });
});

describe("answer files in the console", () => {
  it("attach_file writes under data/files/ with a safe name, never over an earlier file, and prints the path", async () => {
    const model = new ScriptedModel([
      call("attach_file", { name: "../../escape.csv", content: "a,b\n1,2\n" }),
      say("Saved it."),
      call("attach_file", { name: "escape.csv", content: "second\n" }),
      say("Again."),
    ]);
    harness = await startConsole({ model });
    harness.type("as CSV");
    await harness.waitFor("Saved it.");
    const folder = join(harness.folder, "data", "files");
    await harness.waitFor(`Saved ${join(folder, "escape.csv")}`);
    harness.type("once more");
    await harness.waitFor(`Saved ${join(folder, "escape-2.csv")}`);
    expect((await readdir(folder)).sort()).toEqual(["escape-2.csv", "escape.csv"]);
    expect(await readFile(join(folder, "escape.csv"), "utf8")).toBe("a,b\n1,2\n");
    expect(await readdir(harness.folder)).not.toContain("escape.csv");
  });

  it("files that can't be written are said in a line after the answer, and the session goes on", async () => {
    const model = new ScriptedModel([
      call("attach_file", { name: "report.csv", content: "a,b\n" }),
      say("Here it is."),
      say("Still here."),
    ]);
    harness = await startConsole({ model });
    // A file where the folder should be: data/files can't be made.
    await writeFile(join(harness.folder, "data"), "not a folder");
    harness.type("as CSV");
    const answered = await harness.waitFor("Here it is.");
    await harness.waitFor(/Could not save the answer's files under .*data\/files \(.*ENOTDIR.*\)\./, answered);
    harness.type("are you there?");
    await harness.waitFor("Still here.", answered);
  });
});
