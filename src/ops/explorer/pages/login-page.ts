// The sign-in form: one field, `token` (ADMIN_TOKEN); a wrong token shows the form again with why.
import type { Reply } from "../http-io.js";
import { html, page } from "../html.js";

export function loginPage(error?: string): Reply {
  const body = html`<form method="post" action="/admin/login" class="login">
${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<label>Admin token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button></form>`;
  return { status: 200, type: "html", body: page({ title: "Sign in" }, body) };
}
