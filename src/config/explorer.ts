// The run explorer at /admin: on with a token, on PORT or a listener of its own.
import { area, optionalPart } from "./area.js";
import { nonBlank, secretText, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

export const ADMIN_TOKEN = variable("ADMIN_TOKEN", secretText(16), {
  secret: true,
  meaning: "turns the run explorer on at `/admin` on `PORT` (console mode: `PORT` at 127.0.0.1); unset: every `/admin` path answers 404",
});

export const ADMIN_PORT = variable("ADMIN_PORT", wholeNumber(0, 65_535), {
  meaning: "the explorer on a listener of its own instead (`/admin` on `PORT` then answers 404); needs `ADMIN_TOKEN`",
});

export const explorerArea = area({
  title: "Run explorer",
  about: "The pages and JSON API at `/admin`; off unless `ADMIN_TOKEN` is set.",
  variables: {
    token: ADMIN_TOKEN,
    port: ADMIN_PORT,
    host: variable("ADMIN_HOST", nonBlank("expects a host name or address to listen on"), {
      default: "127.0.0.1",
      meaning: "where `ADMIN_PORT` listens",
    }),
  },
  /** Off (absent) without a token; the rules refuse ADMIN_PORT without one. */
  shape: ({ token, port, host }) => optionalPart("admin", token === undefined ? undefined : { token, host, ...optionalPart("port", port) }),
});
