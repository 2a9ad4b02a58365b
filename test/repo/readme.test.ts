// The README is the first page a team reads: it stays short (details go to docs/), and every
// command and variable it shows exists, so a first hour spent following it is not wasted (its
// links are checked with the docs' in docs-links.test.ts).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/repo-paths.js";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const scripts = Object.keys((JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: object }).scripts);
/** npm's own commands the README may show besides the scripts. */
const NPM_COMMANDS = ["install", "ci"];

function sourceText(folder: string): string {
  return readdirSync(folder)
    .map((entry) => join(folder, entry))
    .map((path) => (statSync(path).isDirectory() ? sourceText(path) : path.endsWith(".ts") ? readFileSync(path, "utf8") : ""))
    .join("\n");
}

/** `npm run x`, `npm x`: the commands shown, in code spans and blocks alike. */
function npmCommands(text: string): string[] {
  return [...text.matchAll(/\bnpm (run )?([a-z][a-z0-9:-]*)/g)].map((match) => (match[1] ? `run ${match[2]}` : match[2]!));
}

/** Names shaped like environment variables inside code (`SLACK_BOT_TOKEN`, `LOG_LEVEL=debug`). */
function variables(text: string): string[] {
  const code = [...text.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((match) => match[0]).join("\n");
  return [...new Set([...code.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((match) => match[0]))];
}

describe("the README", () => {
  it("is at most 200 lines", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(200);
  });

  it("shows only npm commands that exist", () => {
    const shown = npmCommands(readme);
    expect(shown).toContain("start");
    for (const command of shown) {
      const name = command.replace(/^run /, "");
      expect(scripts.includes(name) || (!command.startsWith("run ") && NPM_COMMANDS.includes(name)), `npm ${command}`).toBe(true);
    }
  });

  it("names only environment variables the code reads", () => {
    const source = sourceText(join(repoRoot, "src"));
    const shown = variables(readme);
    expect(shown).toContain("OPENAI_API_KEY");
    for (const name of shown) expect(new RegExp(`\\b${name}\\b`).test(source), name).toBe(true);
  });
});

describe("the detector itself", () => {
  it("finds a command or a variable that does not exist", () => {
    expect(npmCommands("run `npm run deploy` then `npm start`")).toEqual(["run deploy", "start"]);
    expect(variables("set `NO_SUCH_VARIABLE=1` and `LOG_LEVEL`; TEXT_OUTSIDE_CODE")).toEqual(["NO_SUCH_VARIABLE", "LOG_LEVEL"]);
  });
});
