// Where the store lives, from STORE_URL: a SQLite file (the embedded default) or Redis (several
// bot processes). Pure; the one-line errors name what to write instead.
import { isAbsolute, resolve } from "node:path";
import { StoreUrlError } from "../errors.js";

export type StoreLocation =
  | { readonly kind: "sqlite"; readonly path: string }
  | { readonly kind: "redis"; readonly url: string; readonly host: string; readonly port: number; readonly database: number };

const URL_HELP = "use sqlite://<path relative to the working folder>, sqlite:///<absolute path> or redis://host:port[/db]";

/** Throws StoreUrlError (one line) for anything but the three accepted forms. */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  const shown = redactPassword(url);
  if (url.startsWith("sqlite://")) {
    const path = url.slice("sqlite://".length);
    if (path.trim() === "") throw new StoreUrlError(shown, `the SQLite path is empty; ${URL_HELP}`);
    return { kind: "sqlite", path: isAbsolute(path) ? path : resolve(cwd, path) };
  }
  if (!/^rediss?:\/\//.test(url)) throw new StoreUrlError(shown, URL_HELP);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUrlError(shown, `not a valid Redis URL; ${URL_HELP}`);
  }
  if (parsed.hostname === "") throw new StoreUrlError(shown, `the Redis host is missing; ${URL_HELP}`);
  const database = parsed.pathname === "" || parsed.pathname === "/" ? "0" : parsed.pathname.slice(1);
  if (!/^\d{1,2}$/.test(database)) throw new StoreUrlError(shown, `the Redis database must be a number like /0; ${URL_HELP}`);
  if (parsed.search !== "" || parsed.hash !== "") throw new StoreUrlError(shown, `options after "?" or "#" are not supported; ${URL_HELP}`);
  return { kind: "redis", url, host: parsed.hostname, port: parsed.port === "" ? 6379 : Number(parsed.port), database: Number(database) };
}

function redactPassword(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
}
