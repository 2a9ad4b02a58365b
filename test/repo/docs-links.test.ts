// Every relative link in README.md, CONTRIBUTING.md and docs/*.md leads somewhere: its file or
// folder exists and, when it names an anchor, a heading of the target page gives that anchor by
// GitHub's rule. docs/configuration.md's links are written in the declarations under src/config/:
// a dead one is fixed there, then `npm run docs:config`.
import { mkdir, writeFile } from "node:fs/promises";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deadLinks, headingAnchors, relativeLinks } from "../support/markdown-page.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { repoRoot } from "../support/repo-paths.js";

const docs = readdirSync(join(repoRoot, "docs")).filter((name) => name.endsWith(".md"));
const PAGES = ["README.md", "CONTRIBUTING.md", ...docs.map((name) => `docs/${name}`)];

describe("the docs' links", () => {
  it.each(PAGES)("%s links only to files and headings that exist", (page) => {
    expect(deadLinks(repoRoot, page)).toEqual([]);
  });

  it("are found on every page, anchors and links between pages included", () => {
    const links = PAGES.flatMap((page) => relativeLinks(readFileSync(join(repoRoot, page), "utf8")));
    expect(PAGES).toContain("docs/configuration.md");
    expect(links.filter((link) => link.target.startsWith("#")).length).toBeGreaterThan(0);
    expect(links.filter((link) => /\.md#/.test(link.target)).length).toBeGreaterThan(10);
    expect(links.filter((link) => !link.target.includes("#")).length).toBeGreaterThan(10);
  });
});

describe("the link reader itself", () => {
  it("finds inline, image and reference links, over a line break too, and none in code or leaving the repository", () => {
    const page = [
      "See [the guide](guide.md#setup) and ![a picture](img/a.png).",
      "A link whose text [runs over",
      "two lines](two.md).",
      '`[in a code span](span.md)`, [`code` as text](<spaced name.md> "title")',
      "[web](https://example.com), [mail](mailto:a@example.com), [here](#top)",
      "```md",
      "[in a code block](block.md)",
      "```",
      "[ref]: reference.md#part",
    ].join("\n");
    expect(relativeLinks(page)).toEqual([
      { line: 1, target: "guide.md#setup" },
      { line: 1, target: "img/a.png" },
      { line: 2, target: "two.md" },
      { line: 4, target: "spaced name.md" },
      { line: 5, target: "#top" },
      { line: 9, target: "reference.md#part" },
    ]);
  });

  it("gives headings GitHub's anchors: code kept, markup and punctuation dropped, repeats numbered, code blocks skipped", () => {
    const page = [
      "# Where tokens go: `.env`",
      "## The `AGENT_MAX_STEPS` guard",
      "## **Bold**, _emphasis_ and snake_case",
      "## In the chat (every surface)",
      "### [A linked](x.md) heading ##",
      "## Repeat",
      "## Repeat",
      "## Repeat",
      "## Où — “quoted” 1–2",
      "```sh",
      "# a comment, not a heading",
      "```",
      "#not a heading",
    ].join("\n");
    expect([...headingAnchors(page)]).toEqual([
      "where-tokens-go-env",
      "the-agent_max_steps-guard",
      "bold-emphasis-and-snake_case",
      "in-the-chat-every-surface",
      "a-linked-heading",
      "repeat",
      "repeat-1",
      "repeat-2",
      "où--quoted-12",
    ]);
  });

  it("names the page, the line and the link of each one that leads nowhere", async () => {
    const folder = await temporaryFolder();
    try {
      await mkdir(join(folder.path, "docs"));
      await writeFile(join(folder.path, "src.ts"), "export {};\n");
      await writeFile(join(folder.path, "README.md"), "# Read me\n\n## Set `UP`\n");
      await writeFile(
        join(folder.path, "docs", "page.md"),
        [
          "# Page",
          "[fine](../README.md#set-up), [fine too](#page), [a folder](../docs), [source](../src.ts)",
          "[gone](../MISSING.md)",
          "[no such heading](../README.md#setup)",
          "[not here](#nowhere)",
          "[no anchors in code](../src.ts#L1)",
          "[ref]: gone.md",
        ].join("\n"),
      );
      expect(deadLinks(folder.path, "docs/page.md")).toEqual([
        "docs/page.md:3: ../MISSING.md (no file MISSING.md)",
        "docs/page.md:4: ../README.md#setup (no heading in README.md gives #setup)",
        "docs/page.md:5: #nowhere (no heading in docs/page.md gives #nowhere)",
        "docs/page.md:6: ../src.ts#L1 (src.ts is not a Markdown page, so it has no anchors)",
        "docs/page.md:7: gone.md (no file docs/gone.md)",
      ]);
    } finally {
      await folder.remove();
    }
  });
});
