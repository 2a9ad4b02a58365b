// What a typed line means: questions, commands, bad commands, and approval answers.
import { describe, expect, it } from "vitest";
import { isApproval, parseCommand } from "../../../src/adapters/console/console-commands.js";

describe("parseCommand", () => {
  it("reads text that is not a command as a question, trimmed", () => {
    expect(parseCommand("  what is 2+2 ")).toEqual({ kind: "ask", text: "what is 2+2" });
    expect(parseCommand("a/b is a path")).toEqual({ kind: "ask", text: "a/b is a path" });
  });

  it("reads a blank line as nothing to do", () => {
    expect(parseCommand("")).toEqual({ kind: "empty" });
    expect(parseCommand("   \t")).toEqual({ kind: "empty" });
  });

  it("knows the commands, in any case", () => {
    expect(parseCommand("/trace")).toEqual({ kind: "trace" });
    expect(parseCommand("/MEMORY")).toEqual({ kind: "command", name: "memory", text: "" });
    expect(parseCommand(" /forget ")).toEqual({ kind: "command", name: "forget", text: "" });
    expect(parseCommand("/feedback")).toEqual({ kind: "command", name: "feedback", text: "" });
    expect(parseCommand("/help")).toEqual({ kind: "help" });
    expect(parseCommand("/quit")).toEqual({ kind: "quit" });
    expect(parseCommand("/exit")).toEqual({ kind: "quit" });
  });

  it("hands the text after a command that takes some to it (the schedule commands), and refuses text after one that takes none", () => {
    expect(parseCommand("/schedule every weekday at 9:00 Europe/Berlin: summarise the log")).toEqual({
      kind: "command",
      name: "schedule",
      text: "every weekday at 9:00 Europe/Berlin: summarise the log",
    });
    expect(parseCommand("/Unschedule sch_ab12cd34")).toEqual({ kind: "command", name: "unschedule", text: "sch_ab12cd34" });
    expect(parseCommand("/schedule")).toEqual({ kind: "command", name: "schedule", text: "" });
    expect(parseCommand("/usage")).toEqual({ kind: "command", name: "usage", text: "" });
    expect(parseCommand("/schedules mine")).toEqual({
      kind: "bad_command",
      message: "/schedules takes nothing after it. Type /help for the commands.",
    });
  });

  it("/demo loop takes an optional question, kept as typed", () => {
    expect(parseCommand("/demo loop")).toEqual({ kind: "demo_loop" });
    expect(parseCommand("/Demo LOOP  what  time is it")).toEqual({ kind: "demo_loop", question: "what  time is it" });
  });

  it("answers a bad command with what to type instead", () => {
    expect(parseCommand("/demo")).toEqual({ kind: "bad_command", message: "Usage: /demo loop [question]" });
    expect(parseCommand("/demo spin")).toEqual({ kind: "bad_command", message: "Usage: /demo loop [question]" });
    expect(parseCommand("/demoloop")).toMatchObject({ kind: "bad_command", message: expect.stringContaining("Unknown command /demoloop") });
    expect(parseCommand("/quit now")).toEqual({
      kind: "bad_command",
      message: "/quit takes nothing after it. Type /help for the commands.",
    });
    expect(parseCommand("/")).toMatchObject({ kind: "bad_command", message: expect.stringContaining("/help") });
  });
});

describe("isApproval", () => {
  it("approves only y or yes", () => {
    for (const answer of ["y", "Y", "yes", " YES "]) expect(isApproval(answer)).toBe(true);
    for (const answer of ["", "n", "no", "yy", "yes please", "sure", "ok"]) expect(isApproval(answer)).toBe(false);
  });
});
