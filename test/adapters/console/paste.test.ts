// The bracketed-paste filter between the terminal and readline: pasted line breaks become one
// line's marks whatever the chunks, typed Enter stays Enter; and what Ctrl-C means when.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ctrlC } from "../../../src/adapters/console/ctrl-c.js";
import { PASTED_BREAK, pasteInput, unfoldPaste } from "../../../src/adapters/console/paste-input.js";

async function filtered(chunks: readonly string[]): Promise<string> {
  const source = new PassThrough();
  const filter = pasteInput(source);
  let out = "";
  filter.on("data", (chunk: Buffer | string) => (out += chunk.toString()));
  for (const chunk of chunks) source.write(chunk);
  source.end();
  await new Promise((resolve) => filter.on("end", resolve));
  return out;
}

describe("the paste filter", () => {
  it("folds a paste's line breaks into marks and leaves typed Enter alone", async () => {
    expect(await filtered(["ask\r\u001b[200~one\r\ntwo\nthree\u001b[201~\r"])).toBe(`ask\rone${PASTED_BREAK}two${PASTED_BREAK}three\r`);
  });

  it("finds the markers when a chunk ends inside one", async () => {
    expect(await filtered(["\u001b[2", "00~a\rb\u001b", "[201", "~\r"])).toBe(`a${PASTED_BREAK}b\r`);
  });

  it("drops a paste's trailing line break, so Enter sends it", async () => {
    expect(await filtered(["\u001b[200~a\rb\r\u001b[201~"])).toBe(`a${PASTED_BREAK}b`);
  });

  it("keeps a multi-byte character split across chunks", async () => {
    const bytes = Buffer.from("é");
    const source = new PassThrough();
    const filter = pasteInput(source);
    let out = "";
    filter.on("data", (chunk: Buffer | string) => (out += chunk.toString()));
    source.write(bytes.subarray(0, 1));
    source.write(bytes.subarray(1));
    source.end();
    await new Promise((resolve) => filter.on("end", resolve));
    expect(out).toBe("é");
  });

  it("unfolds the marks into line breaks", () => {
    expect(unfoldPaste(`one${PASTED_BREAK}two`)).toBe("one\ntwo");
  });
});

describe("Ctrl-C", () => {
  it("clears typed text first, then denies an approval, then stops a run, then leaves", () => {
    expect(ctrlC({ typed: "half", approving: true, stoppable: true })).toBe("clear_line");
    expect(ctrlC({ typed: "", approving: true, stoppable: true })).toBe("deny");
    expect(ctrlC({ typed: "", approving: false, stoppable: true })).toBe("stop_run");
    expect(ctrlC({ typed: "", approving: false, stoppable: false })).toBe("leave");
  });
});
