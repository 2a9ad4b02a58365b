// Secrets at rest (OAuth tokens, refresh tokens, client secrets, PKCE verifiers): AES-256-GCM with
// a key that never lives in the store (derived from the approval key, kept outside the store like
// it). Each value is bound to the store key it is written under (the additional data), so a sealed
// value copied under another person's key does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** Resolves to the key material; may be called on every use (the approval key source loads once). */
export type KeyMaterial = () => Promise<Buffer>;

export interface SealedBox {
  seal(value: unknown, boundTo: string): Promise<string>;
  /** undefined when the text was not sealed by this key for this store key (altered, moved, or another key). */
  open(text: unknown, boundTo: string): Promise<unknown>;
}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
// A fixed label: the derived key is used for nothing else, and changing it voids every stored connection.
const HKDF_INFO = "mcp connection encryption key v1";

export function deriveSealingKey(material: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", material, "guarded-agent-bot", HKDF_INFO, 32));
}

export function createSealedBox(material: KeyMaterial): SealedBox {
  let derived: { readonly from: Buffer; readonly key: Buffer } | undefined;
  const key = async () => {
    const from = await material();
    if (derived?.from !== from) derived = { from, key: deriveSealingKey(from) };
    return derived.key;
  };
  return {
    async seal(value, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", await key(), iv);
      cipher.setAAD(Buffer.from(boundTo));
      const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    async open(text, boundTo) {
      if (typeof text !== "string") return undefined;
      const [version, iv, body] = text.split(".");
      if (version !== VERSION || !iv || !body) return undefined;
      const bytes = Buffer.from(body, "base64url");
      if (bytes.length <= TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", await key(), Buffer.from(iv, "base64url"));
        decipher.setAAD(Buffer.from(boundTo));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]);
        return JSON.parse(plain.toString("utf8")) as unknown;
      } catch {
        return undefined;
      }
    },
  };
}
