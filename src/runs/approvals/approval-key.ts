// The key that signs paused runs is never kept in the store it protects: whoever can read and
// write the store (a leaked Redis password) must not be able to re-sign an altered request. APPROVAL_SECRET when it is set; with Redis, a key derived from a secret every
// bot process of the deployment already has; otherwise a key file in KEYS_DIR (the data folder by
// default, so it survives a redeploy with the store; keep it out of copies of the store you hand out).
import { hkdfSync, randomBytes } from "node:crypto";
import { link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../../logger.js";
import type { Config } from "../../config.js";
import { ApprovalKeyError } from "../../errors.js";
import { parseStoreUrl } from "../../memory/keyv-store.js";

export type SharedSecretName = "SLACK_SIGNING_SECRET" | "SLACK_BOT_TOKEN" | "SLACK_CLIENT_SECRET" | "DISCORD_TOKEN";

export type ApprovalKeyPlan =
  | { readonly kind: "configured"; readonly secret: string }
  | { readonly kind: "derived"; readonly from: SharedSecretName; readonly secret: string }
  /** `fallback`: an earlier version's key file (the working folder's), used while it exists and `path` does not. */
  | { readonly kind: "file"; readonly path: string; readonly fallback?: string };

/** Resolves to the signing key. Must not be cached by callers: a failed load is tried again on the next call. */
export type ApprovalKey = () => Promise<Buffer>;

const KEY_BYTES = 32;
const KEY_FILE_TEXT = /^[A-Za-z0-9+/]{43}=$/;
// Fixed labels: the derived key is used for nothing else, and changing them voids every waiting approval.
const HKDF_SALT = "guarded-agent-bot";
const HKDF_INFO = "approval signing key v1";

/** Which key signs approvals, from the settings alone. Console mode on SQLite takes the key file too. */
export function planApprovalKey(config: Config): ApprovalKeyPlan {
  if (config.approvalSecret) return { kind: "configured", secret: config.approvalSecret };
  const shared = parseStoreUrl(config.storeUrl).kind === "redis" ? sharedSecret(config) : undefined;
  if (shared) return { kind: "derived", ...shared };
  const fallback = config.approvalKeyFallback;
  return { kind: "file", path: config.approvalKeyFile, ...(fallback && fallback !== config.approvalKeyFile ? { fallback } : {}) };
}

/** Processes on one Redis share no file, but they all hold the chat surface's own secret. */
function sharedSecret(config: Config): { readonly from: SharedSecretName; readonly secret: string } | undefined {
  if (config.slack?.mode.kind === "http") return { from: "SLACK_SIGNING_SECRET", secret: config.slack.mode.signingSecret };
  if (config.slack?.auth.kind === "token") return { from: "SLACK_BOT_TOKEN", secret: config.slack.auth.botToken };
  if (config.slack) return { from: "SLACK_CLIENT_SECRET", secret: config.slack.auth.clientSecret };
  if (config.discord) return { from: "DISCORD_TOKEN", secret: config.discord.token };
  return undefined;
}

export function deriveApprovalKey(secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, HKDF_SALT, HKDF_INFO, KEY_BYTES));
}

/** The key source for this process; logs once when APPROVAL_SECRET is recommended. */
export function approvalKeySource(config: Config, logger: Logger): ApprovalKey {
  const plan = planApprovalKey(config);
  if (plan.kind === "configured") {
    const key = Buffer.from(plan.secret);
    return async () => key;
  }
  if (plan.kind === "derived") {
    logger.warn(
      { derivedFrom: plan.from },
      `APPROVAL_SECRET is not set: approvals are signed with a key derived from ${plan.from}. Set APPROVAL_SECRET (the same on every process) so that rotating ${plan.from} does not void the approvals waiting`,
    );
    const key = deriveApprovalKey(plan.secret);
    return async () => key;
  }
  if (parseStoreUrl(config.storeUrl).kind === "redis") {
    logger.warn(
      { path: plan.path },
      "APPROVAL_SECRET is not set and no chat secret is shared: approvals are signed with this machine's key file, so other machines on the same Redis can't decide them. Set APPROVAL_SECRET",
    );
  }
  let loading: Promise<Buffer> | undefined;
  const load: ApprovalKey = () => {
    loading ??= readOrCreateKeyFile(plan.path, logger, plan.fallback).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  // Loaded once at start so a key file that can't be used is in the log before anyone waits on it.
  load().catch((error: unknown) => logger.error({ err: error }, "approvals can't be signed until the approval key file can be used"));
  return load;
}

/** Creates the file atomically (hard link of a finished temp file), so processes starting together agree on one key. */
async function readOrCreateKeyFile(path: string, logger: Logger, fallback?: string): Promise<Buffer> {
  const existing = await readKeyFile(path, logger);
  if (existing) return existing;
  // An install from before KEYS_DIR keeps its key (and so the approvals waiting) where it made it.
  const earlier = fallback === undefined ? undefined : await readKeyFile(fallback, logger);
  if (earlier) {
    logger.info(
      { path: fallback, suggested: path },
      "using the approval key file an earlier version made in the working folder; move it to the suggested path (or set APPROVAL_KEY_FILE) so it is kept with the store",
    );
    return earlier;
  }
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temporary, `${randomBytes(KEY_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    try {
      await link(temporary, path);
      logger.info({ path }, "created the approval signing key file");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
  } catch (error) {
    throw new ApprovalKeyError(path, `could not be created (${(error as Error).message})`);
  }
  const created = await readKeyFile(path, logger);
  if (!created) throw new ApprovalKeyError(path, "vanished right after it was created");
  return created;
}

/** undefined when there is no file yet. */
async function readKeyFile(path: string, logger: Logger): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ApprovalKeyError(path, `could not be read (${(error as Error).message})`);
  }
  if (!KEY_FILE_TEXT.test(text.trim()))
    throw new ApprovalKeyError(
      path,
      "is damaged (expected the base64 key the bot wrote); delete it to make a new one, which voids the approvals waiting",
    );
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) logger.warn({ path }, "the approval key file can be read by other users; restrict it with chmod 600");
  return Buffer.from(text.trim(), "base64");
}
