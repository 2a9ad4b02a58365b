// docs/configuration.md, generated from the declarations (npm run docs:config): one table per
// area, then the rules between variables. test/config/docs.test.ts fails when the file and
// the declarations disagree.
import type { Area } from "./area.js";
import type { Variable } from "./variable.js";
import { AREAS } from "./areas.js";
import { headingAnchor } from "./docs-anchor.js";
import { CROSS_FIELD_RULES, START_RULES } from "./rules.js";

export const CONFIGURATION_DOC = "docs/configuration.md";

const INTRO = [
  "<!-- Generated from src/config/ by `npm run docs:config`: change a variable there, not here. -->",
  "",
  "# Configuration",
  "",
  "Everything comes from the environment and is checked at start: a bad value stops the",
  "process with one line naming the variable, e.g.",
  '`Configuration error: AGENT_MAX_STEPS: expects a whole number from 1 to 100 (got "abc")`, exit code 1.',
  "Every number has a range (a value outside it is refused, so a typo can't switch a guard off);",
  "yes/no settings take `yes`/`no`, `true`/`false`, `on`/`off` or `1`/`0` in any case. An empty",
  "value counts as unset.",
];

const cell = (text: string) => text.replaceAll("|", "\\|");

/** A Markdown table with its columns padded to one width, as a formatter would leave it. */
function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const cells = [header, ...rows].map((row) => row.map(cell));
  const widths = header.map((_, column) => Math.max(3, ...cells.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) => `| ${row.map((text, column) => text.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(cells[0]!), line(widths.map((width) => "-".repeat(width))), ...cells.slice(1).map(line)];
}

function areaSection(area: Area, areas: readonly Area[]): string[] {
  const rows = Object.values(area.variables).map((variable) => [
    `\`${variable.name}\``,
    variable.shownDefault,
    variable.range,
    variable.meaning,
  ]);
  const home = (variable: Variable) => areas.find((other) => Object.values(other.variables).includes(variable));
  const used = area.uses.map(
    (variable) => `\`${variable.name}\` ([${home(variable)?.title}](#${headingAnchor(home(variable)?.title ?? "")}))`,
  );
  const uses = used.length === 0 ? [] : ["", `Also read here: ${used.join(", ")}.`];
  return ["", `## ${area.title}`, "", area.about, "", ...table(["variable", "default", "range", "meaning"], rows), ...uses];
}

export function configurationDoc(areas: readonly Area[] = AREAS): string {
  const rules = [...CROSS_FIELD_RULES.map((rule) => rule.says), ...START_RULES].map((says) => `- ${says}`);
  const lines = [
    ...INTRO,
    ...areas.flatMap((area) => areaSection(area, areas)),
    "",
    "## Rules between variables",
    "",
    "A start that breaks one stops with one line naming the variable, like a bad value.",
    "",
    ...rules,
  ];
  return `${lines.join("\n")}\n`;
}
