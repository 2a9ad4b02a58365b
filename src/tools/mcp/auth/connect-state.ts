// The `state` of a Connect link: who it is for (the person), which server, which paused run and
// call, until when (10 minutes), signed with a key that is not in the store. It is used once: the
// callback claims its nonce in the store before anything else, so a replayed link changes nothing.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { KeyValueStore } from "../../../memory/types.js";
import type { ConnectionOwner } from "./connection-store.js";
import type { KeyMaterial } from "./sealed-box.js";

export const CONNECT_LINK_TTL_MS = 10 * 60_000;

export interface ConnectGrant {
  readonly owner: ConnectionOwner;
  readonly server: string;
  readonly runId: string;
  readonly callId: string;
}

export interface ConnectState extends ConnectGrant {
  readonly nonce: string;
  readonly expiresAt: number;
}

export type StateCheck =
  | { readonly kind: "ok"; readonly state: ConnectState }
  | { readonly kind: "invalid" }
  | { readonly kind: "expired"; readonly state: ConnectState }
  | { readonly kind: "used"; readonly state: ConnectState };

export interface ConnectStates {
  issue(grant: ConnectGrant): Promise<{ readonly text: string; readonly state: ConnectState }>;
  /** Checks the signature and the clock; `used` only after `claim`. */
  check(text: string): Promise<StateCheck>;
  /** True for the first claim of a state; every later one (a replay, a second process) gets false. */
  claim(state: ConnectState): Promise<boolean>;
}

const StateSchema = z.object({
  owner: z.object({ surface: z.string(), workspace: z.string().optional(), person: z.string() }),
  server: z.string(),
  runId: z.string(),
  callId: z.string(),
  nonce: z.string(),
  expiresAt: z.number(),
});

const usedKey = (nonce: string) => `mcp:oauth:state-used:${encodeURIComponent(nonce)}`;
// A fixed label: this key signs Connect links and nothing else.
const HKDF_INFO = "mcp connect link state v1";

export function createConnectStates(store: KeyValueStore, material: KeyMaterial, clock: () => number): ConnectStates {
  const sign = async (payload: string) =>
    createHmac("sha256", Buffer.from(hkdfSync("sha256", await material(), "guarded-agent-bot", HKDF_INFO, 32)))
      .update(payload)
      .digest("base64url");

  async function check(text: string): Promise<StateCheck> {
    const [payload, mac] = text.split(".");
    if (!payload || !mac) return { kind: "invalid" };
    const expected = Buffer.from(await sign(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { kind: "invalid" };
    let parsed: ReturnType<typeof StateSchema.safeParse>;
    try {
      parsed = StateSchema.safeParse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
    } catch {
      return { kind: "invalid" };
    }
    if (!parsed.success) return { kind: "invalid" };
    const state = parsed.data as ConnectState;
    if ((await store.get(usedKey(state.nonce))) !== undefined) return { kind: "used", state };
    if (clock() >= state.expiresAt) return { kind: "expired", state };
    return { kind: "ok", state };
  }

  return {
    async issue(grant) {
      const state: ConnectState = { ...grant, nonce: randomBytes(16).toString("base64url"), expiresAt: clock() + CONNECT_LINK_TTL_MS };
      const payload = Buffer.from(JSON.stringify(state)).toString("base64url");
      return { text: `${payload}.${await sign(payload)}`, state };
    },
    check,
    claim: (state) => store.setIfAbsent(usedKey(state.nonce), clock(), CONNECT_LINK_TTL_MS * 2),
  };
}
