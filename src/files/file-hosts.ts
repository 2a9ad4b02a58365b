// Where a surface's file downloads may go: the platform's own file hosts, and the origin of the
// API server the deployment set (SLACK_API_URL, DISCORD_API_URL: a compatible server, a proxy or
// the tests' fake). One rule for every surface, checked by the downloader before the first request
// and before each redirect is followed: a link in an event is untrusted, and what a host answers
// goes to the model, which can repeat it in the channel, so a link or a redirect to anywhere else
// (an internal address, a cloud metadata service) is refused before any request is made. Origins
// are compared exactly (scheme, host and port), so `http://files.slack.com` is not Slack's host.

export interface FileHosts {
  /** Whose hosts these are, as a person reads it: "Slack", "Discord". */
  readonly platform: string;
  /** Exact origins, e.g. `https://files.slack.com`. */
  readonly origins: readonly string[];
}

/** The platform's own origins, plus the configured API server's when there is one. */
export function fileHostsOf(platform: string, own: readonly string[], apiUrl?: string): FileHosts {
  return { platform, origins: [...own, ...(apiUrl === undefined ? [] : [new URL(apiUrl).origin])] };
}

/**
 * Why the download may not request `url`, in a sentence that names its host, or undefined when it may.
 * `via`: the file's own link, or where a redirect sent the download. Short enough for a trace line (200 characters).
 */
export function offPlatformReason(url: URL, hosts: FileHosts, via: "link" | "redirect"): string | undefined {
  if (url.protocol !== "https:" && url.protocol !== "http:") return `the link is not http(s) (${url.protocol})`;
  if (hosts.origins.includes(url.origin)) return undefined;
  const where = via === "link" ? `the link points at ${url.origin}` : `the download was redirected to ${url.origin}`;
  return `${where}, which is not ${hosts.platform}'s file host: the bot fetches files only from ${hosts.platform}, so nothing was requested there`;
}
