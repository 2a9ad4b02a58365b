// docs/configuration.md is generated from the variables' declarations (src/config/): it must be
// what the generator writes today, and every variable must be declared once, with a meaning.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AREAS } from "../../src/config/areas.js";
import { CONFIGURATION_DOC, configurationDoc } from "../../src/config/docs.js";
import { CROSS_FIELD_RULES, START_RULES } from "../../src/config/rules.js";

const variables = AREAS.flatMap((area) => Object.values(area.variables));

describe("docs/configuration.md", () => {
  it("is what the declarations generate", () => {
    expect(readFileSync(CONFIGURATION_DOC, "utf8"), `${CONFIGURATION_DOC} is out of date: run npm run docs:config`).toBe(
      configurationDoc(),
    );
  });

  it("has one row per variable, in its area's table, with the range of its type", () => {
    const doc = configurationDoc();
    for (const area of AREAS) {
      const section = doc.slice(doc.indexOf(`## ${area.title}\n`)).split("\n## ")[0]!;
      for (const variable of Object.values(area.variables)) expect(section).toContain(`| \`${variable.name}\` `);
    }
    expect(doc).toMatch(/\| `AGENT_MAX_STEPS` +\| `10` +\| 1–100 +\| model calls per run/);
    expect(doc).toMatch(/\| `BOT_ROLE` +\| `all` +\| `all`, `ingress`, `worker` +\|/);
    expect(doc).toMatch(/\| `MEMORY_EXTRACT_FACTS` +\| `yes` +\| yes\/no +\|/);
  });

  it("lists every rule between variables", () => {
    const doc = configurationDoc();
    for (const says of [...CROSS_FIELD_RULES.map((rule) => rule.says), ...START_RULES]) expect(doc).toContain(`- ${says}`);
  });
});

describe("the declarations", () => {
  it("declare each variable once, with a meaning", () => {
    const names = variables.map((variable) => variable.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    for (const variable of variables) expect(variable.meaning.length, variable.name).toBeGreaterThan(10);
  });

  it("read another area's variable only where it is declared", () => {
    for (const area of AREAS) for (const used of area.uses) expect(variables).toContain(used);
  });
});
