// The modal a server's form becomes on Slack stays within Block Kit's limits whatever the server
// sends within the protocol (long names, many fields, many long choices, long defaults): checked
// against the fake's views.open rules, which refuse what Slack refuses.
import { describe, expect, it } from "vitest";
import type { PendingForm } from "../../../src/contracts/types.js";
import { formModal } from "../../../src/adapters/slack/form-modal.js";
import { formFields, MAX_FORM_FIELDS } from "../../../src/tools/mcp/elicitation.js";
import { modalProblems } from "../../support/fake-slack-views.js";
import { originFor } from "../../support/service-harness.js";

function formOf(server: string, schema: unknown): PendingForm {
  const fields = formFields(schema);
  if (!fields.ok) throw new Error(fields.reason);
  return {
    formId: "frm_abcdefghijkl",
    runId: "run1",
    question: { kind: "form", server, message: "x".repeat(5_000), fields: fields.fields },
    requester: { id: "U0ALICE" },
    origin: originFor("U0ALICE"),
    expiresAt: Date.now() + 60_000,
  };
}

describe("a server's form as a Slack modal", () => {
  it("fits Slack's limits at the protocol's extremes", () => {
    const properties: Record<string, unknown> = {
      pick: {
        type: "string",
        title: "t".repeat(200),
        description: "d".repeat(500),
        enum: Array.from({ length: 100 }, (_, index) => `value-${index}-${"v".repeat(80)}`),
        enumNames: Array.from({ length: 100 }, (_, index) => `${index} ${"label ".repeat(15)}`),
        default: `value-99-${"v".repeat(80)}`,
      },
      essay: { type: "string", maxLength: 4_000, default: "e".repeat(3_500) },
      ratio: { type: "number", minimum: 0.5, maximum: 2.5, default: 1.5 },
      ok: { type: "boolean", default: false },
      mail: { type: "string", format: "email", default: "a@b.co" },
      day: { type: "string", format: "date", default: "2026-12-06" },
      few: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, default: ["b"] },
      many: { type: "array", items: { type: "string", enum: Array.from({ length: 60 }, (_, i) => `v${i}`) }, maxItems: 3, default: ["v1"] },
    };
    for (let index = Object.keys(properties).length; index < MAX_FORM_FIELDS; index++) properties[`f${index}`] = { type: "string" };
    const view = formModal(formOf("a-server-with-a-very-long-name-indeed", { type: "object", properties }), {
      channel: "C1",
      threadTs: "1.2",
    });
    expect(modalProblems(view)).toEqual([]);
    expect(view.title.text).toHaveLength(24);
  });

  it("the fake refuses what Slack refuses", () => {
    expect(modalProblems({ type: "modal", title: { type: "plain_text", text: "x".repeat(25) }, blocks: [] })).toEqual([
      "view.title must be less than 25 characters",
    ]);
    const input = (element: object) => ({
      type: "modal",
      title: { type: "plain_text", text: "t" },
      submit: { type: "plain_text", text: "Send" },
      blocks: [{ type: "input", block_id: "b", label: { type: "plain_text", text: "l" }, element }],
    });
    expect(
      modalProblems(input({ type: "number_input", is_decimal_allowed: false, min_value: "1", max_value: "3", initial_value: "4" })),
    ).toEqual(["view.blocks[0].element.initial_value must be between min_value and max_value"]);
    const option = { text: { type: "plain_text", text: "a" }, value: "a" };
    expect(modalProblems(input({ type: "static_select", options: [option], initial_option: { ...option, value: "b" } }))).toEqual([
      "view.blocks[0].element.initial_option must be one of the options",
    ]);
  });

  it("a server's schema whose defaults break its own bounds is refused before anyone sees it", () => {
    expect(formFields({ type: "object", properties: { n: { type: "integer", minimum: 1, maximum: 3, default: 9 } } })).toEqual({
      ok: false,
      reason: 'field "n": its default is outside its bounds',
    });
    expect(formFields({ type: "object", properties: { s: { type: "string", maxLength: 2, default: "abc" } } })).toEqual({
      ok: false,
      reason: 'field "s": its default is longer than maxLength',
    });
  });
});
