// Timezone names, checked once for everything that takes one (SCHEDULE_DEFAULT_TZ, a schedule's
// phrase, a person's chat profile): the platform's tz database (Intl) decides what exists.

/**
 * The timezone's canonical name, or undefined when it is not one. `UTC` in any case, or an
 * `Area/Location` name the tz database knows (any case); abbreviations like `CET` or `EST` are
 * refused: they are ambiguous, and the database maps some to surprising places.
 */
export function timeZoneName(text: string): string | undefined {
  const trimmed = text.trim();
  if (/^(utc|gmt|etc\/utc)$/i.test(trimmed)) return "UTC";
  if (!/^[A-Za-z][A-Za-z_-]*(\/[A-Za-z0-9_+-]+){1,2}$/.test(trimmed)) return undefined;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: trimmed }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
