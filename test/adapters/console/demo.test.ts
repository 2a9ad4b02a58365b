// The offline demo as a newcomer meets it on a fresh clone (the app as startApp wires it, no
// OPENAI_API_KEY, nothing else set): `/demo write` shows a write waiting for approval, and the
// note lands in the data folder's scratch file only once approved.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppHarness } from "../../support/app-harness.js";

const apps = useAppHarness();

describe("the offline demo's write, with no setup", () => {
  it("/demo write asks approve? [y/N] with the note; y saves it to data/demo-notes.txt and the answer says where", async () => {
    const term = await apps.startConsole();
    await term.waitFor("/demo write [note]", "the help line");
    term.type("/demo write buy milk");
    await term.waitFor("approve? [y/N] ", "the approval question");
    expect(term.shown()).toMatch(/\? save_note needs your approval before it runs\. It would run with:\n {6}\{\n {8}"text": "buy milk"/);
    term.type("y");
    const file = join(apps.folder, "demo-notes.txt");
    await term.waitFor(`Saved to ${file}: buy milk.`, "the answer");
    expect(await readFile(file, "utf8")).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z buy milk\n$/);
  });

  it("the default note, which ends its own sentence, is answered without a second full stop", async () => {
    const term = await apps.startConsole();
    term.type("/demo write");
    await term.waitFor("approve? [y/N] ", "the approval question");
    term.type("y");
    await term.waitFor(`Saved to ${join(apps.folder, "demo-notes.txt")}: Hello from the offline demo.\n`, "the answer");
    expect(term.shown()).not.toContain("demo..");
  });

  it("a denied note is not written, and the answer says who did not approve it", async () => {
    const term = await apps.startConsole();
    term.type("please save a note: call the bank");
    await term.waitFor("approve? [y/N] ", "the approval question");
    term.type("n");
    await term.waitFor("I did not save the note: ada did not approve it.", "the answer");
    await expect(readFile(join(apps.folder, "demo-notes.txt"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
