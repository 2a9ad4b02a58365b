// A plain run record for tests and benchmarks of the record store: index 0 is the newest
// (started at NOW), each next one a minute older, spread over surfaces, channels and people.
import type { RunRecord } from "../../src/memory/run-records/record-schema.js";

export const NOW = Date.parse("2026-12-01T12:00:00Z");

export function sampleRecord(index: number, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    version: 1,
    runId: `run-${String(index).padStart(5, "0")}`,
    surface: index % 2 === 0 ? "slack" : "discord",
    conversationKey: `slack:T1:C${index % 3}:1`,
    channel: `C${index % 3}`,
    workspace: "T1",
    requester: { id: `U${index % 5}`, name: `person ${index % 5}` },
    content: "full",
    question: `question number ${index}`,
    questionLength: 18,
    startedAt: NOW - index * 60_000,
    endedAt: NOW - index * 60_000 + 1_500,
    settings: {
      model: "gpt-4o-mini",
      maxSteps: 10,
      maxConsecutiveErrors: 3,
      oscillationWindow: 6,
      contextWindow: 128_000,
      reservedOutputTokens: 2048,
      observationTokens: 2000,
      runTimeoutMs: 120_000,
      approvalTimeoutMs: 900_000,
      tools: [],
    },
    steps: [],
    notes: [],
    approvals: [],
    status: "answered",
    outcome: index % 4 === 0 ? "guard" : "answered",
    ...(index % 4 === 0 ? { stop: { guard: "repeat", detail: "d", sentence: "s" } } : {}),
    answer: "an answer",
    usage: { prompt: 100, completion: 10, cached: 0 },
    counted: { prompt: 100, completion: 10, cached: 0 },
    partial: false,
    cut: false,
    votes: {},
    ...overrides,
  };
}
