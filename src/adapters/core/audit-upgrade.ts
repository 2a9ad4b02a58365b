// Audit entries an earlier version wrote kept the whole place of a request, a Discord
// interaction's token included, and no link. At start each surface's own codec reads them again:
// the place keeps only what it should, and the entry gains the link the codec writes now.
import type { Surface } from "../../contracts/types.js";
import type { AuditEntry, AuditLog } from "../../governance/audit-log.js";
import type { Logger } from "../../logger.js";
import type { OriginUpgrade } from "../../runs/api/surface-hooks.js";

/** Never rejects: a failure is logged, and the next start tries again. */
export async function upgradeAuditEntries(
  audit: AuditLog,
  codecs: Readonly<Partial<Record<Surface, OriginUpgrade>>>,
  logger: Logger,
): Promise<void> {
  const fix = (entry: AuditEntry): AuditEntry | undefined => {
    const upgrade = codecs[entry.surface];
    if (!upgrade) return undefined;
    const { origin } = upgrade({
      surface: entry.surface,
      conversationKey: entry.conversationKey,
      requester: entry.requester,
      place: entry.place,
    });
    const link = entry.link ?? origin.scope?.link;
    const same = JSON.stringify(origin.place) === JSON.stringify(entry.place) && link === entry.link;
    return same ? undefined : { ...entry, place: { ...origin.place }, ...(link ? { link } : {}) };
  };
  try {
    const changed = await audit.rewrite(fix);
    if (changed > 0) logger.info({ changed }, "rewrote audit entries of an earlier version (no secrets kept, links added)");
  } catch (error) {
    logger.warn({ err: error }, "could not rewrite the audit entries of an earlier version; the next start tries again");
  }
}
