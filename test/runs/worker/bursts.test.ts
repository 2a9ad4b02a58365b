import { describe, expect, it } from "vitest";
import type { TaskOrigin } from "../../../src/contracts/types.js";
import type { FileDescriptor } from "../../../src/files/file-ref.js";
import type { Task } from "../../../src/runs/api/task.js";
import { mergedTask } from "../../../src/runs/worker/bursts.js";

const origin: TaskOrigin = { surface: "slack", conversationKey: "slack:T:C:1", requester: { id: "U1" }, place: {} };
const file = (id: string): FileDescriptor => ({ id, name: `${id}.txt`, mime: "text/plain", source: { file: id } });

describe("one question of a burst", () => {
  it("keeps the messages in order, their files in order, and the first one's thread context", () => {
    const first: Task = { origin, text: "summarise #releases", contextSource: { channel: "C", thread: "1" }, files: [file("a")] };
    const merged = mergedTask(first, [
      { origin, text: "", files: [file("b")] },
      { origin, text: "skip the mobile ones" },
    ]);
    expect(merged.text).toBe("summarise #releases\n\nskip the mobile ones");
    expect(merged.files?.map((descriptor) => descriptor.id)).toEqual(["a", "b"]);
    expect(merged.contextSource).toEqual({ channel: "C", thread: "1" });
  });

  it("a burst with no files brings none", () => {
    expect(mergedTask({ origin, text: "a" }, [{ origin, text: "b" }])).toEqual({ origin, text: "a\n\nb" });
  });
});
