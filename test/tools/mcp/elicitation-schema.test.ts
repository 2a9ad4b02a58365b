// Which form requests this client shows: a flat schema of strings, numbers, booleans and single
// choices with defaults becomes fields; everything else is refused with the field and the reason.
import { describe, expect, it } from "vitest";
import { formFields, MAX_FORM_FIELDS, resultOf } from "../../../src/tools/mcp/elicitation.js";

const form = (properties: Record<string, unknown>, required?: string[]) => ({
  type: "object",
  properties,
  ...(required ? { required } : {}),
});

describe("a form request's schema", () => {
  it("becomes fields: titles as labels, required ones, both kinds of choice, number bounds and formats", () => {
    const read = formFields(
      form(
        {
          size: {
            type: "string",
            title: "Size",
            oneOf: [
              { const: "s", title: "Small" },
              { const: "l", title: "Large" },
            ],
            default: "l",
          },
          color: { type: "string", enum: ["red", "blue"] },
          count: { type: "integer", minimum: 1, maximum: 5 },
          ratio: { type: "number", default: 0.5 },
          mail: { type: "string", format: "email", description: "where to write" },
          ok: { type: "boolean", default: true },
        },
        ["count"],
      ),
    );
    expect(read).toEqual({
      ok: true,
      fields: [
        {
          kind: "choice",
          name: "size",
          label: "Size",
          required: false,
          options: [
            { value: "s", label: "Small" },
            { value: "l", label: "Large" },
          ],
          default: "l",
        },
        {
          kind: "choice",
          name: "color",
          label: "color",
          required: false,
          options: [
            { value: "red", label: "red" },
            { value: "blue", label: "blue" },
          ],
        },
        { kind: "number", name: "count", label: "count", required: true, integer: true, minimum: 1, maximum: 5 },
        { kind: "number", name: "ratio", label: "ratio", required: false, integer: false, default: 0.5 },
        { kind: "text", name: "mail", label: "mail", description: "where to write", required: false, format: "email" },
        { kind: "boolean", name: "ok", label: "ok", required: false, default: true },
      ],
    });
  });

  it("refuses what is not a flat form, saying which field and why", () => {
    const reasons = [
      formFields({ type: "array" }),
      formFields(form({})),
      formFields(form({ a: { type: "string", pattern: "^x" } })),
      formFields(form({ a: { type: "object" } })),
      formFields(form({ "a b": { type: "string" } })),
      formFields(form({ a: { type: "string", enum: ["x"], default: "y" } })),
      formFields(form({ a: { type: "string" } }, ["b"])),
      formFields(form(Object.fromEntries(Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => [`f${i}`, { type: "string" }])))),
    ].map((read) => (read.ok ? "shown" : read.reason));
    expect(reasons).toEqual([
      "requestedSchema must be an object schema with properties",
      "the form has no fields",
      'field "a": unsupported keyword "pattern"',
      'field "a": type "object" is not a string, number, integer or boolean',
      'field name "a b" is not 1-64 letters, digits, _ . -',
      'field "a": its default is not one of its choices',
      'required field "b" is not among the properties',
      `the form has ${MAX_FORM_FIELDS + 1} fields; at most ${MAX_FORM_FIELDS} are shown`,
    ]);
  });

  it("answers as the spec has it: content only with accept", () => {
    expect(resultOf({ action: "accept", values: { a: 1 }, by: { id: "u" } })).toEqual({ action: "accept", content: { a: 1 } });
    expect(resultOf({ action: "decline", by: { id: "u" } })).toEqual({ action: "decline" });
    expect(resultOf({ action: "cancel", reason: "timeout" })).toEqual({ action: "cancel" });
  });
});
