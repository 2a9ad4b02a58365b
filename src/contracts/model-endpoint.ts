// A model endpoint's name: one model at one server, written `<model>@<base URL>` as
// MODEL_FALLBACKS lists it. Traces, run records, metrics and prices name an endpoint so; the URL
// in a name never holds credentials, a query or a trailing slash, so one endpoint has one name.

/** `gpt-4o@https://api.openai.com/v1`. */
export function endpointName(model: string, baseUrl: string): string {
  return `${model}@${bareUrl(baseUrl)}`;
}

/** The base URL without user, password, query, fragment or trailing slash. */
export function bareUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    return parsed.toString().replace(/\/+$/, "");
  } catch {
    return url.replace(/\/+$/, "");
  }
}

/** The model and the server of a name; a name without a server (an older record's model) is the model alone. */
export function endpointParts(name: string): { readonly model: string; readonly server?: string } {
  const at = name.search(/@https?:\/\/[^@]*$/);
  return at < 0 ? { model: name } : { model: name.slice(0, at), server: name.slice(at + 1) };
}

/** The server's host (and port), for a trace line: `api.openai.com`, `127.0.0.1:11434`. */
export function endpointHost(name: string): string {
  const { server } = endpointParts(name);
  if (server === undefined) return "";
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}

/** How a person reads an endpoint beside `other`: its model, with its host when the two models are the same. */
export function endpointLabel(name: string, other?: string): string {
  const { model } = endpointParts(name);
  return other !== undefined && endpointParts(other).model === model ? `${model} at ${endpointHost(name)}` : model;
}

/** An endpoint where a person needs to know which server: `gpt-4o at api.openai.com`. */
export function endpointText(name: string): string {
  const host = endpointHost(name);
  return host === "" ? endpointParts(name).model : `${endpointParts(name).model} at ${host}`;
}
