// Who may use the explorer: ADMIN_TOKEN as a Bearer header, or a session started by signing in
// with it (a random id in an HttpOnly, SameSite=Strict cookie; never the token), each with its
// own CSRF token for forms. Every comparison of a secret is in constant time; sign-in tries are
// limited per client and for everyone (sign-in-limits.ts). Sessions live in this process only: a
// restart signs everyone out.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { createSignInLimits, type SignInAllowance } from "./sign-in-limits.js";

export const SESSION_COOKIE = "admin_session";
const SESSION_MS = 12 * 60 * 60_000;
const MAX_SESSIONS = 1_000;

export interface Session {
  readonly id: string;
  readonly csrf: string;
  readonly expiresAt: number;
}

/** A new session when the token is right; else it was wrong, or a limit held and the token was not looked at. */
export type SignInResult =
  | { readonly kind: "signed_in"; readonly session: Session }
  | { readonly kind: "wrong" }
  | Extract<SignInAllowance, { kind: "limited" }>;

export type Caller =
  | { readonly kind: "bearer" }
  | { readonly kind: "session"; readonly session: Session }
  | { readonly kind: "anonymous" }
  /** A Bearer header from an address (or at a time) the sign-in limits hold: not looked at. */
  | Extract<SignInAllowance, { kind: "limited" }>;

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** Equal strings, compared in time that does not depend on where they differ (or on their lengths). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function cookieValue(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const equals = part.indexOf("=");
    if (equals > 0 && part.slice(0, equals).trim() === name) return part.slice(equals + 1).trim();
  }
  return undefined;
}

export interface Sessions {
  /**
   * The caller of a request from `client` (its address): the Bearer token, a live session, or nobody. A
   * Bearer header is a try at the token too: a wrong one counts as a failed sign-in, and while the
   * limits hold none is looked at, so the API can't guess faster than the sign-in form.
   */
  callerOf(request: IncomingMessage, client: string): Caller;
  /** Checks a sign-in try from `client` (its address). */
  signIn(client: string, token: string): SignInResult;
  signOut(id: string): void;
  /** The Set-Cookie value for a session (or for ending one); `secure`: the browser reached the explorer over HTTPS. */
  cookie(session: Session | undefined, secure: boolean): string;
}

export function createSessions(adminToken: string, clock: () => number = Date.now): Sessions {
  const sessions = new Map<string, Session>();
  const limits = createSignInLimits(clock);

  const live = (id: string | undefined): Session | undefined => {
    if (!id || !/^[\w-]{20,100}$/.test(id)) return undefined;
    // Looked up by the digest of the id, so finding it does not compare the id byte by byte.
    const session = sessions.get(digest(id).toString("hex"));
    if (!session || session.expiresAt <= clock()) return undefined;
    return session;
  };

  return {
    callerOf(request, client) {
      const authorization = request.headers.authorization ?? "";
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
      if (bearer !== undefined) {
        const held = limits.blocked(client);
        if (held.kind === "limited") return held;
        if (sameSecret(bearer, adminToken)) return { kind: "bearer" };
        limits.allow(client);
        limits.failed();
      }
      const session = live(cookieValue(request, SESSION_COOKIE));
      return session ? { kind: "session", session } : { kind: "anonymous" };
    },
    signIn(client, token) {
      const allowance = limits.allow(client);
      if (allowance.kind === "limited") return allowance;
      if (!sameSecret(token, adminToken)) {
        limits.failed();
        return { kind: "wrong" };
      }
      const now = clock();
      for (const [key, session] of sessions) if (session.expiresAt <= now) sessions.delete(key);
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
      const session: Session = {
        id: randomBytes(32).toString("base64url"),
        csrf: randomBytes(32).toString("base64url"),
        expiresAt: now + SESSION_MS,
      };
      sessions.set(digest(session.id).toString("hex"), session);
      return { kind: "signed_in", session };
    },
    signOut(id) {
      sessions.delete(digest(id).toString("hex"));
    },
    cookie(session, secure) {
      const attributes = `Path=/admin; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
      return session
        ? `${SESSION_COOKIE}=${session.id}; Max-Age=${Math.floor(SESSION_MS / 1000)}; ${attributes}`
        : `${SESSION_COOKIE}=; Max-Age=0; ${attributes}`;
    },
  };
}
