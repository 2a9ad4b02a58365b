import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decideFactWrite,
  factSimilarity,
  NEAR_DUPLICATE_THRESHOLD,
  normalizeFact,
  rankFacts,
  RELEVANCE_THRESHOLD,
} from "../../src/memory/fact-similarity.js";
import type { Fact } from "../../src/memory/types.js";

let nextId = 0;
function fact(text: string, overrides: Partial<Fact> = {}): Fact {
  nextId += 1;
  return { id: `f${nextId}`, text, createdAt: nextId, lastUsedAt: nextId, uses: 0, ...overrides };
}

describe("normalizeFact", () => {
  it("folds width and case, drops punctuation (CJK too) and collapses whitespace", () => {
    expect(normalizeFact("  Ｈｅｌｌｏ，\t World！  ")).toBe("hello world");
    expect(normalizeFact("「用户」喜欢喝咖啡。")).toBe("用户 喜欢喝咖啡");
    expect(normalizeFact("The user's name is Ann.")).toBe("the users name is ann");
    expect(normalizeFact("dark-mode, please!!")).toBe("dark mode please");
  });

  it("is idempotent", () => {
    fc.assert(fc.property(fc.string(), (text) => normalizeFact(normalizeFact(text)) === normalizeFact(text)));
  });
});

describe("factSimilarity", () => {
  it("is 1 for the same normalised text and stays within [0, 1]", () => {
    expect(factSimilarity("User prefers dark mode", "user PREFERS dark mode!")).toBe(1);
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const score = factSimilarity(a, b);
        return score >= 0 && score <= 1 && score === factSimilarity(b, a);
      }),
    );
  });

  it("is 0 for texts with nothing in common", () => {
    expect(factSimilarity("alpha beta", "xyz")).toBe(0);
    expect(factSimilarity("", "")).toBe(0);
  });
});

describe("decideFactWrite", () => {
  const stored = [fact("User prefers dark mode"), fact("用户喜欢喝咖啡"), fact("The project is called Atlas")];
  const [darkMode, coffee, atlas] = stored as [Fact, Fact, Fact];

  it.each([
    ["an exact copy", "User prefers dark mode", darkMode],
    ["a case variant", "USER PREFERS DARK MODE", darkMode],
    ["a whitespace variant", "  User   prefers\tdark mode ", darkMode],
    ["a punctuation variant", "User prefers dark mode!", darkMode],
    ["a full-width variant", "Ｕｓｅｒ prefers dark mode", darkMode],
    ["a Chinese copy with CJK punctuation", "用户喜欢喝咖啡。", coffee],
  ])("skips %s", (_, candidate, original) => {
    expect(decideFactWrite(stored, candidate)).toEqual({ kind: "skip", duplicateOf: original.id });
  });

  it.each([
    ["English", "The user prefers dark mode.", darkMode],
    ["Chinese", "用户很喜欢喝咖啡", coffee],
    ["English, with a word more", "The project is now called Atlas", atlas],
  ])("replaces a near duplicate in %s", (_, candidate, original) => {
    expect(factSimilarity(candidate, original.text)).toBeGreaterThanOrEqual(NEAR_DUPLICATE_THRESHOLD);
    expect(decideFactWrite(stored, candidate)).toEqual({ kind: "replace", replaces: original.id });
  });

  it.each([
    "User prefers light mode",
    "User works at Acme",
    "User lives in Berlin",
    "用户住在北京",
    "用户的名字是小明",
    "ユーザーは東京に住んでいる",
  ])("adds the distinct fact %j", (candidate) => {
    expect(decideFactWrite(stored, candidate)).toEqual({ kind: "add" });
  });

  it("keeps every fact of a set of distinct facts, in English and Chinese", () => {
    const distinct = [
      "User's name is Ann",
      "User works at Acme",
      "User prefers dark mode",
      "User lives in Berlin",
      "Deploys happen on Fridays",
      "用户喜欢喝咖啡",
      "用户住在北京",
      "用户的名字是小明",
      "项目使用TypeScript",
    ];
    const kept: Fact[] = [];
    for (const text of distinct) {
      expect(decideFactWrite(kept, text), text).toEqual({ kind: "add" });
      kept.push(fact(text));
    }
    expect(kept).toHaveLength(distinct.length);
  });

  it("replaces the most similar entry, and the oldest of equally similar ones", () => {
    const older = fact("User prefers dark mode", { createdAt: 1 });
    const newer = fact("User prefers dark mode in the editor", { createdAt: 2 });
    expect(decideFactWrite([newer, older], "The user prefers dark mode")).toEqual({ kind: "replace", replaces: older.id });
    const twinA = fact("Team meets daily at 9", { createdAt: 5 });
    const twinB = fact("Team meets daily at 8", { createdAt: 3 });
    expect(factSimilarity("Team meets daily at 7", twinA.text)).toBe(factSimilarity("Team meets daily at 7", twinB.text));
    expect(decideFactWrite([twinA, twinB], "Team meets daily at 7")).toEqual({ kind: "replace", replaces: twinB.id });
  });

  it("catches a degree adverb in Chinese whatever the subject: 我很喜欢喝咖啡 ~ 我喜欢喝咖啡", () => {
    for (const [older, newer] of [
      ["我喜欢喝咖啡", "我很喜欢喝咖啡"],
      ["用户喜欢喝咖啡", "用户非常喜欢喝咖啡"],
      ["我很喜欢喝咖啡", "我喜欢喝咖啡"],
    ] as const) {
      const stored = fact(older);
      expect(factSimilarity(newer, older), `${newer} ~ ${older}`).toBeGreaterThanOrEqual(NEAR_DUPLICATE_THRESHOLD);
      expect(decideFactWrite([stored], newer)).toEqual({ kind: "replace", replaces: stored.id });
    }
  });

  it.each(["用户", "我", "他"])(
    "treats a negation the same with the subject %s: the newer statement replaces the one it contradicts",
    (subject) => {
      const likes = fact(`${subject}喜欢喝咖啡`);
      expect(decideFactWrite([likes], `${subject}不喜欢喝咖啡`)).toEqual({ kind: "replace", replaces: likes.id });
      const dislikes = fact(`${subject}不喜欢喝咖啡`);
      expect(decideFactWrite([dislikes], `${subject}喜欢喝咖啡`)).toEqual({ kind: "replace", replaces: dislikes.id });
      expect(decideFactWrite([dislikes], `${subject}不喜欢喝咖啡。`)).toEqual({ kind: "skip", duplicateOf: dislikes.id });
    },
  );

  it("adds to an empty list and honours a custom threshold", () => {
    expect(decideFactWrite([], "anything")).toEqual({ kind: "add" });
    expect(decideFactWrite([darkMode], "User prefers light mode", 0.3)).toEqual({ kind: "replace", replaces: darkMode.id });
  });
});

describe("rankFacts", () => {
  it("puts the most relevant first and breaks ties by recency", () => {
    const coffee = fact("User drinks coffee every morning", { lastUsedAt: 1 });
    const berlin = fact("User lives in Berlin", { lastUsedAt: 2 });
    const acme = fact("User works at Acme", { lastUsedAt: 3 });
    const atlas = fact("Project Atlas ships in May", { lastUsedAt: 4 });
    const ranked = rankFacts([coffee, berlin, acme, atlas], "Which city does the user live in? Berlin?", 3);
    expect(ranked[0]).toEqual({ fact: berlin, relevant: true });
    expect(ranked).toHaveLength(3);
    const unrelated = rankFacts([coffee, berlin, acme, atlas], "zzz", 2);
    expect(unrelated).toEqual([
      { fact: atlas, relevant: false },
      { fact: acme, relevant: false },
    ]);
  });

  it("marks as relevant only facts that share more than noise with the query", () => {
    const name = fact("User's name is Ann");
    const acme = fact("User works at Acme");
    const ranked = rankFacts([name, acme], "what's my name?", 2);
    expect(ranked).toEqual([
      { fact: name, relevant: true },
      { fact: acme, relevant: false },
    ]);
    expect(factSimilarity("what's my name?", acme.text)).toBeGreaterThan(0);
    expect(factSimilarity("what's my name?", acme.text)).toBeLessThan(RELEVANCE_THRESHOLD);
  });

  it("returns nothing for a limit of 0", () => {
    expect(rankFacts([fact("a fact")], "a fact", 0)).toEqual([]);
  });
});
