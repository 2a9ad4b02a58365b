// The process's resource stack: closes run by shutdown phase (intake, runs, clients, store),
// whatever order the resources opened in; within a phase, in reverse of opening; each once.
import { describe, expect, it } from "vitest";
import { createResourceStack, type SHUTDOWN_PHASES } from "../../src/resource-stack.js";
import { silentLogger } from "../../src/logger.js";
import { capturingLogger } from "../support/capturing-logger.js";

describe("the resource stack", () => {
  it("closes the app's resources in the shutdown order, not the opening order: intake, runs, clients, store", async () => {
    const stack = createResourceStack(silentLogger);
    const closed: string[] = [];
    const defer = (phase: (typeof SHUTDOWN_PHASES)[number], name: string) => stack.defer(phase, name, () => void closed.push(name));
    // The order app.ts opens them in.
    defer("store", "store");
    defer("clients", "ops port");
    defer("store", "audit log");
    defer("store", "run records");
    defer("intake", "schedules");
    defer("runs", "schedules' last outcomes");
    defer("runs", "runner");
    defer("clients", "explorer");
    defer("clients", "MCP servers");
    defer("intake", "surfaces' intake");
    defer("clients", "platform clients");
    defer("intake", "readiness");
    await stack.dispose();
    expect(closed).toEqual([
      "readiness",
      "surfaces' intake",
      "schedules",
      "runner",
      "schedules' last outcomes",
      "platform clients",
      "MCP servers",
      "explorer",
      "ops port",
      "run records",
      "audit log",
      "store",
    ]);
  });

  it("waits for each close before the next, so the runs have posted before a client closes", async () => {
    const stack = createResourceStack(silentLogger);
    const closed: string[] = [];
    stack.defer("clients", "platform clients", () => void closed.push("clients"));
    stack.defer("runs", "runner", async () => {
      await new Promise((resolve) => setImmediate(resolve));
      closed.push("runs posted");
    });
    await stack.dispose();
    expect(closed).toEqual(["runs posted", "clients"]);
  });

  it("a close that throws or rejects is logged with its name, and the rest still close", async () => {
    const { logger, warnings } = capturingLogger();
    const stack = createResourceStack(logger);
    const closed: string[] = [];
    stack.defer("store", "the store", () => void closed.push("store"));
    stack.defer("clients", "the platform clients", () => Promise.reject(new Error("socket gone")));
    stack.defer("runs", "the runner", () => {
      throw new Error("bug");
    });
    await expect(stack.dispose()).resolves.toBeUndefined();
    expect(closed).toEqual(["store"]);
    expect(warnings().map((line) => line.msg)).toEqual(["the runner did not close cleanly", "the platform clients did not close cleanly"]);
  });

  it("disposes once: a second stop (SIGTERM after a fatal error) gets the same promise and closes nothing twice", async () => {
    const stack = createResourceStack(silentLogger);
    let closes = 0;
    stack.defer("store", "the store", () => void closes++);
    const first = stack.dispose();
    expect(stack.dispose()).toBe(first);
    await first;
    await stack.dispose();
    expect(closes).toBe(1);
  });

  it("a resource that opens while the stack is closing is closed too", async () => {
    const stack = createResourceStack(silentLogger);
    const closed: string[] = [];
    let release!: () => void;
    stack.defer("runs", "runner", () => new Promise<void>((resolve) => (release = resolve)));
    const disposing = stack.dispose();
    stack.defer("clients", "late client", () => void closed.push("late client"));
    release();
    await disposing;
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toEqual(["late client"]);
  });

  it("tells a close how long the shutdown has taken so far", async () => {
    let now = 1_000;
    const stack = createResourceStack(silentLogger, () => now);
    let seen: number | undefined;
    expect(stack.elapsedMs()).toBe(0);
    stack.defer("runs", "first", () => {
      now += 300;
    });
    stack.defer("clients", "second", () => {
      seen = stack.elapsedMs();
    });
    await stack.dispose();
    expect(seen).toBe(300);
  });
});
