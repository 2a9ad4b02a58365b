// A browser as plain HTTP: GET requests that follow redirects and keep the cookies each host sets
// (an authorization server keeps its sign-in in one), reading the last page as text.

/** The last page's status and text (its title left out), every redirect followed. */
export async function openInBrowser(url: string): Promise<{ status: number; text: string }> {
  const jar = new Map<string, Map<string, string>>();
  let next = url;
  for (let hop = 0; hop < 20; hop++) {
    const host = new URL(next).host;
    const cookies = jar.get(host) ?? new Map<string, string>();
    const response = await fetch(next, {
      redirect: "manual",
      headers: cookies.size > 0 ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") } : {},
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    jar.set(host, cookies);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      next = new URL(location, next).toString();
      continue;
    }
    const html = await response.text();
    const text = html
      .replace(/<title>[^<]*<\/title>/, "")
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim();
    return { status: response.status, text };
  }
  throw new Error(`more than 20 redirects from ${url}`);
}
