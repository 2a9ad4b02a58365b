// The run explorer in a real browser (headless Chromium) against the real product with runs the
// fake model made: sign-in, the run list's filters, a run's timeline with its guard trip, a fact
// deleted and gone from the next run's prompt, usage totals equal to the sum of the runs, the CSV
// download, a tool call's source, no cookie refused, a POST without the CSRF token refused, a
// <script> question as text.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import { createLongTermMemory } from "../../../src/memory/long-term-memory.js";
import { openBrowser, describeWithBrowser, type Browser } from "../../support/browser.js";
import { ADMIN_TOKEN, startExplorerProduct, untilRuns, type ExplorerProduct } from "../../support/explorer-harness.js";
import { explorerModel, FACT } from "../../support/explorer-model.js";
import { TEAM_ID } from "../../support/fake-slack.js";

const THREAD = "1700400000.000100";
let product: ExplorerProduct;
let browser: Browser;

const promptsOfThread = (question: string) =>
  product.model.requests
    .filter((request) => JSON.stringify(request.body.messages).includes(question))
    .map((request) => JSON.stringify(request.body.messages));

describeWithBrowser("the explorer in a browser", () => {
  beforeAll(async () => {
    product = await startExplorerProduct(explorerModel);
    await product.ask("when do we deploy?", "Answer to: when do we deploy?", { ts: THREAD });
    // A remembered fact about that conversation, as fact extraction would have written it.
    const store = await openStore(`sqlite://${join(product.folder, "bot.sqlite")}`, silentLogger);
    await createLongTermMemory(store, { maxFacts: 10, logger: silentLogger }).remember(`slack:${TEAM_ID}:C0GENERAL:${THREAD}`, [FACT]);
    await store.close();
    await product.ask("and which day again?", "Answer to: and which day again?", { ts: "1700400001.000100", thread: THREAD });
    await product.ask("hello <script>window.__xss = 1</script> there", "Answer to: hello");
    await product.ask("please loop", "stopped");
    await product.ask("add two and three", "It is 5.");
    await untilRuns(product.base, 5);
    browser = await openBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await product?.close();
  });

  it("signs in, filters the runs, and shows a run's timeline with its guard trip", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${product.base}/admin/`);
    expect(new URL(page.url()).pathname).toBe("/admin/login");
    await page.fill('input[name="token"]', "not-the-token-at-all");
    await page.click('button[type="submit"]');
    expect(await page.textContent('[role="alert"]')).toContain("not the admin token");
    await page.fill('input[name="token"]', ADMIN_TOKEN);
    await Promise.all([page.waitForURL(`${product.base}/admin/`), page.click('button[type="submit"]')]);
    expect(await page.locator("table.runs tbody tr").count()).toBe(5);

    await page.selectOption('select[name="outcome"]', "guard");
    await Promise.all([page.waitForURL(/outcome=guard/), page.click("form.filters button")]);
    const rows = page.locator("table.runs tbody tr");
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("please loop");

    await Promise.all([page.waitForURL(/\/admin\/runs\//), rows.first().locator("a").click()]);
    expect(await page.locator("svg.timeline rect.trip").count()).toBe(1);
    expect(await page.locator(".trip-note").first().textContent()).toContain("Guard tripped (repeat)");
    expect(await page.locator("details").count()).toBeGreaterThanOrEqual(3);
    await page.locator("details summary").first().click();
    expect(await page.locator("details[open] pre").first().textContent()).toBe('{"expression":"1+1"}');
    await page.close();
  });

  it("shows where a tool call's result came from on the run's page and in the API", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${product.base}/admin/`);
    const row = page.locator("table.runs tbody tr", { hasText: "add two and three" });
    await Promise.all([page.waitForURL(/\/admin\/runs\//), row.locator("a").click()]);
    await page.locator("details summary", { hasText: "calculator" }).first().click();
    expect(await page.locator("details[open] p.source").textContent()).toBe(
      "Source: the result of tool calculator (the model read it as data)",
    );
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    const api = (await (
      await fetch(`${product.base}/admin/api/runs/${runId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as { steps: Array<{ calls: Array<{ source?: unknown }> }> };
    expect(api.steps[0]!.calls[0]!.source).toEqual({ kind: "tool", tool: "calculator" });
    await page.close();
  });

  it("deletes a remembered fact (audited), and the next run's prompt no longer has it", async () => {
    expect(promptsOfThread("and which day again?").some((prompt) => prompt.includes(FACT))).toBe(true);
    const page = await browser.context.newPage();
    await page.goto(`${product.base}/admin/conversations`);
    expect(await page.textContent("table.facts")).toContain(FACT);
    page.once("dialog", (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(`${product.base}/admin/conversations`), page.click('table.facts button[type="submit"]')]);
    expect(await page.textContent("main")).not.toContain(FACT);
    await page.goto(`${product.base}/admin/audit`);
    expect(await page.textContent("table.audit")).toContain("fact deleted");
    await product.ask("one more time, which day?", "Answer to: one more time, which day?", { ts: "1700400002.000100", thread: THREAD });
    const prompts = promptsOfThread("one more time, which day?");
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.some((prompt) => prompt.includes(FACT))).toBe(false);
    await page.close();
  });

  it("shows usage totals equal to the sum of the runs, and downloads them as CSV", async () => {
    await untilRuns(product.base, 6);
    const api = (await (
      await fetch(`${product.base}/admin/api/runs?limit=200`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as {
      runs: Array<{ usage: { prompt: number; completion: number } }>;
    };
    const sum = api.runs.reduce((total, run) => total + run.usage.prompt + run.usage.completion, 0);
    expect(sum).toBeGreaterThan(0);
    const page = await browser.context.newPage();
    await page.goto(`${product.base}/admin/usage`);
    expect(Number(await page.getAttribute("[data-total-tokens]", "data-total-tokens"))).toBe(sum);
    expect(await page.locator("svg.chart").count()).toBe(2);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("text=CSV")]);
    const csv = await readFile((await download.path())!, "utf8");
    const [header, total] = csv.split("\r\n");
    expect(header).toBe("dimension,id,runs,input_tokens,cached_tokens,output_tokens,fact_extraction_tokens,cost_usd,unpriced_tokens");
    const cells = total!.split(",");
    expect(cells[0]).toBe("total");
    expect(Number(cells[3]) + Number(cells[5])).toBe(sum);
    await page.close();
  });

  it("renders a question holding a script as text, and runs no script from it", async () => {
    const page = await browser.context.newPage();
    let dialogs = 0;
    page.on("dialog", (dialog) => {
      dialogs += 1;
      void dialog.dismiss();
    });
    await page.goto(`${product.base}/admin/?q=hello`);
    expect(await page.textContent("table.runs")).toContain("hello <script>window.__xss = 1</script> there");
    await page.click("table.runs a");
    expect(await page.textContent("pre.question")).toBe("hello <script>window.__xss = 1</script> there");
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(dialogs).toBe(0);
    await page.close();
  });

  it("refuses a POST without the CSRF token, and every page and POST without a cookie", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${product.base}/admin/conversations`);
    const withoutCsrf = await page.evaluate(() =>
      fetch("/admin/conversations/delete-fact", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "conversation=x&fact=y",
      }).then((response) => response.status),
    );
    expect(withoutCsrf).toBe(403);
    await page.close();

    const stranger = await openBrowser();
    try {
      const other = await stranger.context.newPage();
      for (const path of ["/admin/", "/admin/usage", "/admin/conversations", "/admin/settings"]) {
        await other.goto(`${product.base}${path}`);
        expect(new URL(other.url()).pathname).toBe("/admin/login");
      }
      const status = await other.evaluate(() =>
        fetch("/admin/conversations/delete-fact", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "conversation=x&fact=y&csrf=z",
        }).then((response) => response.status),
      );
      expect(status).toBe(401);
      expect((await other.request.get(`${product.base}/admin/api/runs`)).status()).toBe(401);
    } finally {
      await stranger.close();
    }
  });
});
