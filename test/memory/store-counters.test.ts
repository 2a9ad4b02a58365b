// The store's atomic counter (KeyValueStore.increment) that rate and token limits stand on:
// exact under concurrency, shared by every client of one store, and reset by its window.
import { describe, expect, it } from "vitest";
import { storeBackends, useStoreClients } from "../support/store-backends.js";

describe.each(storeBackends())("$name increment", (backend) => {
  const clients = useStoreClients(backend);

  it("starts at 0 and returns each new total", async () => {
    expect(await clients.first.increment("count:a", 1, 60_000)).toBe(1);
    expect(await clients.first.increment("count:a", 250, 60_000)).toBe(251);
    expect(await clients.first.increment("count:a", 0, 60_000)).toBe(251);
  });

  it("loses no addition when two clients race", async () => {
    const adds = Array.from({ length: 40 }, (_, index) =>
      (index % 2 === 0 ? clients.first : clients.second).increment("count:race", 3, 60_000),
    );
    const totals = await Promise.all(adds);
    expect(Math.max(...totals)).toBe(120);
    expect(new Set(totals).size).toBe(40);
  });

  it("starts again from 0 once the window has passed, and the window is not extended by later adds", async () => {
    await clients.first.increment("count:window", 5, 150);
    await clients.first.increment("count:window", 5, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await clients.second.increment("count:window", 1, 60_000)).toBe(1);
  });

  it("replaces a record that is not a counter", async () => {
    await clients.first.set("count:text", "not a number");
    expect(await clients.first.increment("count:text", 2, 60_000)).toBe(2);
  });

  it("refuses a fraction or a bad window", async () => {
    await expect(clients.first.increment("count:bad", 1.5, 1000)).rejects.toThrow(/whole number/);
    await expect(clients.first.increment("count:bad", 1, 0)).rejects.toThrow(/TTL/);
  });
});
