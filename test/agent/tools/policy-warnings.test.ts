// TOOL_POLICY=…=allow on a write tool is allowed, but never silent: the tool is named in a warning
// as soon as a surface offers it.
import { describe, expect, it } from "vitest";
import { writesRunWithoutApproval } from "../../../src/agent/tools/policy-warnings.js";
import { ScriptedModel } from "../../support/model-scripted.js";
import { builtinTools } from "../../../src/agent/tools/builtin.js";
import { loadConfig } from "../../../src/config.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { noteTool } from "../../support/service-harness.js";
import { useServiceHarnesses } from "../../support/service-harness.js";

const services = useServiceHarnesses();

async function warningsFor(policy: string): Promise<string[]> {
  const { logger, warnings } = capturingLogger();
  await services.start({ model: new ScriptedModel([]), tools: [noteTool().tool], env: { TOOL_POLICY: policy }, logger });
  return warnings().map((line) => line.msg);
}

describe("an allow policy on a write tool", () => {
  it("is named in a warning when the surface offers the tool", async () => {
    expect(await warningsFor("post_*=allow")).toEqual([
      "the tool policy (TOOL_POLICY) lets the write tool post_note run without a person's approval",
    ]);
  });

  it.each(["post_note=approve", "post_note=deny", "calculator=allow", "post_note=approve,post_*=allow"])(
    "%s gives no warning",
    async (policy) => {
      expect(await warningsFor(policy)).toEqual([]);
    },
  );

  it("is a pure decision over the tools and rules (first matching rule wins)", () => {
    const note = noteTool().tool;
    const rules = (value: string) => loadConfig({ TOOL_POLICY: value }).toolPolicy;
    expect(writesRunWithoutApproval([...builtinTools, note], rules("*=allow"))).toEqual(["post_note"]);
    expect(writesRunWithoutApproval([...builtinTools, note], rules("post_note=deny,*=allow"))).toEqual([]);
    expect(writesRunWithoutApproval([...builtinTools, note], [])).toEqual([]);
  });
});
