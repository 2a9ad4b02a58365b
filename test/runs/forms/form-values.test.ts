// A person's answer checked against the form's fields, as each surface reads it: strings from text
// boxes and prompts, booleans or checked values from checkboxes, lists from multi-selects; the
// defaults fill what was left empty, and each problem names its field.
import { describe, expect, it } from "vitest";
import type { FormField } from "../../../src/contracts/types.js";
import { readValues } from "../../../src/runs/forms/form-values.js";

const options = [
  { value: "mon", label: "Monday" },
  { value: "tue", label: "Tuesday" },
  { value: "wed", label: "Wednesday" },
];
const FIELDS: readonly FormField[] = [
  { kind: "choices", name: "days", label: "Days", required: true, options, minItems: 1, maxItems: 2, default: ["tue"] },
  { kind: "boolean", name: "ok", label: "OK", required: false, default: true },
  { kind: "number", name: "n", label: "N", required: false, integer: true },
  { kind: "text", name: "mail", label: "Mail", required: false, format: "email" },
];

describe("a form's answer", () => {
  it("reads lists, labels, comma-separated choices and checked values; empty ones take the defaults", () => {
    expect(readValues(FIELDS, { days: ["mon", "Wednesday"], ok: [], n: "7" })).toEqual({
      ok: true,
      values: { days: ["mon", "wed"], ok: false, n: 7 },
    });
    expect(readValues(FIELDS, { days: "Monday, tue", ok: ["true"] })).toEqual({ ok: true, values: { days: ["mon", "tue"], ok: true } });
    expect(readValues(FIELDS, { ok: undefined, n: "", mail: "" })).toEqual({ ok: true, values: { days: ["tue"], ok: true } });
  });

  it("names each field's problem", () => {
    const read = readValues(FIELDS, { days: ["mon", "tue", "wed"], n: "1.5", mail: "nope" });
    expect(read).toEqual({
      ok: false,
      problems: ["Days takes at most 2 choices", "N takes a whole number", "Mail is not an email address"],
      fields: { days: "Days takes at most 2 choices", n: "N takes a whole number", mail: "Mail is not an email address" },
    });
    expect(readValues(FIELDS, { days: [] })).toMatchObject({ ok: false, fields: { days: "Days is required" } });
    expect(readValues(FIELDS, { days: ["fri"] })).toMatchObject({
      ok: false,
      fields: { days: 'Days has "fri", which is not one of Monday, Tuesday, Wednesday' },
    });
  });
});
