import { describe, expect, it } from "vitest";
import { callSignature, canonicalJson } from "../../../src/agent/tools/signature.js";

describe("canonicalJson", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it("leaves out keys whose value is undefined, as JSON does", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it("writes scalars as JSON", () => {
    expect(canonicalJson("x")).toBe('"x"');
    expect(canonicalJson(1.5)).toBe("1.5");
    expect(canonicalJson(true)).toBe("true");
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(undefined)).toBe("null");
  });
});

describe("callSignature", () => {
  it("is the tool name and a 16-digit hash", () => {
    expect(callSignature("calculator", '{"expression":"1+1"}')).toMatch(/^calculator#[0-9a-f]{16}$/);
  });

  it("ignores key order", () => {
    expect(callSignature("t", '{"a":1,"b":2}')).toBe(callSignature("t", '{"b":2,"a":1}'));
  });

  it("ignores whitespace", () => {
    expect(callSignature("t", '{"a":1,"b":[1,2]}')).toBe(callSignature("t", '  {\n  "a" : 1,\t"b" : [ 1 , 2 ] }  '));
  });

  it("ignores key order inside nested objects and objects in arrays", () => {
    const one = '{"filter":{"from":"2024","to":"2025"},"rows":[{"id":1,"tag":"x"}]}';
    const two = '{"rows":[{"tag":"x","id":1}],"filter":{"to":"2025","from":"2024"}}';
    expect(callSignature("search", one)).toBe(callSignature("search", two));
  });

  it("tells different values apart, also deep down", () => {
    expect(callSignature("t", '{"a":{"b":1}}')).not.toBe(callSignature("t", '{"a":{"b":2}}'));
    expect(callSignature("t", '{"a":"1"}')).not.toBe(callSignature("t", '{"a":1}'));
  });

  it("treats array order as meaningful", () => {
    expect(callSignature("t", '{"a":[1,2]}')).not.toBe(callSignature("t", '{"a":[2,1]}'));
  });

  it("tells tools apart when the arguments are the same", () => {
    const args = '{"q":"x"}';
    expect(callSignature("a", args).split("#")[1]).toBe(callSignature("b", args).split("#")[1]);
    expect(callSignature("a", args)).not.toBe(callSignature("b", args));
  });

  it("treats empty arguments as an empty object", () => {
    expect(callSignature("t", "")).toBe(callSignature("t", "{}"));
    expect(callSignature("t", "   ")).toBe(callSignature("t", "{ }"));
  });

  it("hashes arguments that are not JSON as their trimmed text", () => {
    expect(callSignature("t", "{expression: 1+1")).toBe(callSignature("t", "  {expression: 1+1\n"));
    expect(callSignature("t", "{expression: 1+1")).not.toBe(callSignature("t", "{expression: 1+2"));
    expect(callSignature("t", "{expression: 1+1")).toMatch(/^t#[0-9a-f]{16}$/);
  });

  it("does not confuse a JSON string with raw text that spells it", () => {
    expect(callSignature("t", '"raw:x"')).not.toBe(callSignature("t", "x"));
  });
});
