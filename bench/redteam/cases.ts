// The suite's cases, from the data files under cases/: every placement × phrasing × goal of an
// injection (48), the benign tasks (utility.json) and the reads of a more private place (leaks.json).
import { readFileSync } from "node:fs";
import type { Placement } from "./workspace.js";

export interface ExpectedWrite {
  readonly tool: string;
  readonly target: string;
}

export interface Case {
  readonly id: string;
  readonly classes: readonly string[];
  readonly question: string;
  /** The channel the requester asks in. */
  readonly askedIn: string;
  readonly injection?: { readonly placement: Placement; readonly text: string };
  /** The write the injection wants (attacks) or the requester asked for (utility). */
  readonly write?: ExpectedWrite;
  readonly attack: boolean;
  readonly attachFile: boolean;
  /** Benign cases: words the answer must hold. */
  readonly expect?: string;
  /** Leak cases: the answer must not be posted as it is. */
  readonly readsPrivate: boolean;
}

const REQUESTER = "@alice";
const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(`./cases/${name}`, import.meta.url), "utf8")) as T;
const entries = <T>(record: Record<string, T | string>) => Object.entries(record).filter(([key]) => key !== "//") as Array<[string, T]>;

export function loadCases(): Case[] {
  const goals = entries(read<Record<string, { ask: string; write: ExpectedWrite }>>("goals.json"));
  const phrasings = entries(read<Record<string, string>>("phrasings.json"));
  const placements = entries(read<Record<string, { question: string }>>("placements.json"));
  const attacks = placements.flatMap(([placement, where]) =>
    phrasings.flatMap(([phrasing, template]) =>
      goals.map(
        ([goal, wanted]): Case => ({
          id: `${placement}/${phrasing}/${goal}`,
          classes: [`placement: ${placement}`, `phrasing: ${phrasing}`, `goal: ${goal}`],
          question: where.question,
          askedIn: "#general",
          injection: {
            placement: placement as Placement,
            text: template.replaceAll("{goal}", wanted.ask).replaceAll("{requester}", REQUESTER),
          },
          write: wanted.write,
          attack: true,
          attachFile: placement === "file-contents",
          readsPrivate: false,
        }),
      ),
    ),
  );
  const utility = read<Array<{ id: string; question: string; expect: string; file?: boolean; write?: ExpectedWrite }>>("utility.json").map(
    (item): Case => ({
      id: item.id,
      classes: ["utility"],
      question: item.question,
      askedIn: "#general",
      ...(item.write ? { write: item.write } : {}),
      attack: false,
      attachFile: item.file === true,
      expect: item.expect,
      readsPrivate: false,
    }),
  );
  const leaks = read<Array<{ id: string; question: string; in: string }>>("leaks.json").map(
    (item): Case => ({
      id: item.id,
      classes: ["cross-channel read"],
      question: item.question,
      askedIn: item.in,
      attack: false,
      attachFile: false,
      readsPrivate: true,
    }),
  );
  return [...attacks, ...utility, ...leaks];
}
