/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The dashboard in a real browser: Debian's chromium driven by playwright-core, over a store the real `serve` filled
// and the real `brain-mcp ui`. Screenshots go to test/ui/artifacts/ (CI keeps them). Skips, saying so, where
// /usr/bin/chromium is absent; under CI it must be there (.ci/run installs it), so there it fails instead.
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/contract/wire.js";
import { baseEnv, call, ROOT, startService, type ServiceHandle } from "../support/service.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";
import { fillThroughService, MEMORIES, STORED_TEXTS, startUi, type UiHandle } from "./support.js";

const CHROMIUM = "/usr/bin/chromium";
const REBOUND_NAME = "rebound.example";
/** Webhooks may reach the test receiver on 127.0.0.1 (both the service's worker and the dashboard send). */
const HOOKS_ENV = { BRAIN_WEBHOOK_ALLOW_PRIVATE: "1" };
const RECALLS = ["who is on call?", "where is the staging database?", "when is the offsite?"];
const ARTIFACTS = join(ROOT, "test", "ui", "artifacts");
/** The README's picture, written when BRAIN_UI_README_SCREENSHOT=1 (kept in git, so not on every run). */
const README_SCREENSHOT = join(ROOT, "docs", "dashboard.png");

const available = existsSync(CHROMIUM) || Boolean(process.env.CI);
if (!available) process.stderr.write(`dashboard browser tests skipped: ${CHROMIUM} not found (apt-get install chromium enables them)\n`);

describe.skipIf(!available)("the dashboard in chromium", () => {
  let service: ServiceHandle;
  let ui: UiHandle;
  let browser: Browser;
  let page: Page;
  let stored: Record<string, any>[];
  /** Another site on this machine (another port: same site, other origin), whose page posts to the dashboard. */
  let attacker: Server | undefined;
  /** A real webhook receiver on 127.0.0.1, verifying signatures with the standardwebhooks library. */
  let receiver: Receiver;
  const elsewhere: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const { chromium } = await import("playwright-core");
    [service, browser, receiver] = await Promise.all([
      startService({ env: HOOKS_ENV }),
      chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--no-sandbox",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          // A rebinding attacker's name that resolves to this machine, for the forged-Host refusal.
          `--host-resolver-rules=MAP ${REBOUND_NAME} 127.0.0.1`,
        ],
      }),
      startReceiver(),
    ]);
    stored = await fillThroughService(service);
    // An agent's recalls, for the recalls chart.
    for (const query of RECALLS) {
      await call(service.baseURL, "POST", ROUTES.retrieve.path, { key: service.apiKey, json: { query } });
    }
    ui = await startUi(service.storeArgs, baseEnv(HOOKS_ENV));
    // A context of its own, so a second page (the refusals test) shares its cookies.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    // A missing element fails its step with the locator named, well within the test's own timeout.
    page.setDefaultTimeout(10_000);
    // Nothing may load from anywhere but the dashboard itself (checked in the last test).
    page.on("request", (request) => {
      if (!request.url().startsWith(ui.base) && !request.url().startsWith("data:")) elsewhere.push(request.url());
    });
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => attacker?.close(resolve));
    await browser?.close();
    await ui?.stop();
    await service?.stop();
    await receiver?.close();
  });

  it("opens from the printed URL, drops the token from the address, and lists the workspace", async () => {
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    await page.goto(ui.url);
    expect(page.url()).toBe(`${ui.base}/`);
    await expect(page.getByRole("heading", { level: 1, name: "Workspaces" }).waitFor()).resolves.toBeUndefined();
    const row = page.getByRole("row", { name: /primary/ });
    await row.waitFor();
    const cells = await row.getByRole("cell").allTextContents();
    expect(cells).toContain("active");
    expect(cells).toContain(String(stored.length));
    // the session cookie is invisible to the page's scripts
    expect(await page.evaluate(() => document.cookie)).toBe("");
    expect(failed).toEqual([]);
    await shot("1-workspaces");
  });

  it("searches by meaning with the keyboard and shows the relevant memory first, with score and similarity", async () => {
    await page.getByRole("link", { name: "primary" }).click();
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    await page
      .getByRole("status")
      .filter({ hasText: `${stored.length} memories` })
      .waitFor();
    // Tab from the view's heading reaches the search box; Enter submits.
    const search = page.getByLabel("Search by meaning");
    await page.getByRole("heading", { level: 1 }).focus();
    for (let i = 0; i < 10 && !(await search.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(search.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type("who is allergic to nuts?");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "found by meaning" }).waitFor();
    const table = page.getByRole("table");
    await expect(table.getByRole("columnheader").allTextContents()).resolves.toEqual(expect.arrayContaining(["Score", "Similarity"]));
    const first = table.getByRole("row").nth(1);
    await expect(first.getByRole("link").textContent()).resolves.toBe(MEMORIES[4]);
    const score = Number(await first.locator("td.score").textContent());
    const similarity = Number(await first.locator("td.similarity").textContent());
    expect(score).toBeGreaterThan(0);
    expect(similarity).toBeGreaterThan(0);
    expect(page.url()).toContain("q=who+is+allergic");
    await shot("2-search");
  });

  it("filters by category and temporal type from the keyboard-reachable, labelled controls", async () => {
    await page.getByRole("link", { name: "Clear" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `${stored.length} memories` })
      .waitFor();
    const domain = stored[0]!.categories[0] as string;
    const expected = stored.filter((s) => s.categories.includes(domain)).length;
    const category = page.getByLabel("Category");
    await category.focus();
    await category.selectOption(domain);
    await page
      .getByRole("status")
      .filter({ hasText: new RegExp(`^${expected} memor`) })
      .waitFor();
    const rows = page.getByRole("table").getByRole("row");
    expect(await rows.count()).toBe(expected + 1);
    for (const tags of await page.getByRole("table").getByRole("list", { name: "Categories" }).all()) {
      expect(await tags.getByRole("listitem").allTextContents()).toContain(domain);
    }
    for (const label of ["Temporal type", "Minimum importance", "Age"]) await expect(page.getByLabel(label).count()).resolves.toBe(1);
    await shot("3-filtered");
  });

  it("opens a memory and comes back to the same filtered list", async () => {
    const link = page.getByRole("table").getByRole("row").nth(1).getByRole("link");
    const id = Number((await link.getAttribute("href"))!.split("/m/")[1]);
    const text = STORED_TEXTS[stored.findIndex((s) => s.memory_id === id)];
    await link.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: /^Memory #\d+$/ }).waitFor();
    const article = page.getByRole("article");
    await expect(article.locator("blockquote").textContent()).resolves.toBe(text);
    await expect(article.textContent()).resolves.toContain("ui-test");
    await shot("4-memory");
    await page.getByRole("link", { name: /Back to the memories/ }).click();
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    expect(page.url()).toContain("category=");
  });

  it("shows health: the quality score, its signals, recommendations and the lists behind them", async () => {
    await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Health" }).click();
    await page.getByRole("heading", { level: 1, name: "Health" }).waitFor();
    await page.getByRole("heading", { name: "Quality score" }).waitFor();
    const meter = page.getByRole("meter", { name: "Quality score" });
    expect(Number(await meter.getAttribute("value"))).toBeGreaterThan(0);
    await expect(page.getByRole("heading", { name: "Signals", exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole("heading", { name: "Recommendations" }).isVisible()).resolves.toBe(true);
    const lists = page.getByRole("navigation", { name: "Health lists" });
    expect(Number(await meter.getAttribute("value"))).toBeLessThan(100);
    await page.getByText(/overlong_memories \(1\)/).waitFor();
    for (const name of ["Stale memories", "Duplicate pairs", "Never retrieved"]) {
      await lists.getByRole("link", { name }).click();
      await lists.getByRole("link", { name }).and(page.locator('[aria-current="page"]')).waitFor();
      await page.getByText("No memories here.").waitFor();
    }
    await lists.getByRole("link", { name: "Overlong memories" }).click();
    await page.getByRole("link", { name: /^Release runbook for the billing service/ }).waitFor();
    await shot("5-health");
  });

  it("draws the charts with readable summaries", async () => {
    await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Charts" }).click();
    await page.getByRole("heading", { level: 1, name: "Charts" }).waitFor();
    const charts = page.getByRole("img");
    await charts.first().waitFor();
    const summaries = await charts.evaluateAll((els) => els.map((el) => el.getAttribute("aria-label") ?? ""));
    expect(summaries).toHaveLength(4);
    expect(summaries[0]).toContain(`${stored.length} memories in all`);
    expect(summaries[1]).toContain(`${RECALLS.length} recalls in all`);
    expect(summaries.every((s) => s.length > 0)).toBe(true);
    await shot("6-charts");
  });

  it("every form control has an accessible name, and the keyboard reaches them all", async () => {
    await page.goto(`${ui.base}/#/w/${service.workspaceId}`);
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll("input, select, button, a[href]")]
        .filter((el) => {
          const labelled = (el as HTMLInputElement).labels?.length || el.getAttribute("aria-label") || (el.textContent ?? "").trim();
          return !labelled;
        })
        .map((el) => el.outerHTML),
    );
    expect(unnamed).toEqual([]);
    // Tab order visits every filter control.
    const reached = new Set<string>();
    await page.getByRole("heading", { level: 1 }).focus();
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press("Tab");
      const id = await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent || "");
      reached.add(id);
    }
    for (const id of ["q", "category", "temporal", "min_importance", "age", "Search"]) expect(reached).toContain(id);
    expect(elsewhere).toEqual([]);
    if (process.env.BRAIN_UI_README_SCREENSHOT === "1") {
      mkdirSync(join(ROOT, "docs"), { recursive: true });
      await page.getByLabel("Search by meaning").fill("how do we deploy to production?");
      await page.keyboard.press("Enter");
      await page.getByRole("status").filter({ hasText: "found by meaning" }).waitFor();
      await page.screenshot({ path: README_SCREENSHOT });
    }
  });

  describe("the workspace owner's controls", () => {
    const status = (key: string) => call(service.baseURL, "GET", ROUTES.status.path, { key });
    // min_score 0: what the workspace still holds, whatever the default threshold would leave out.
    const recallIds = async (query: string) =>
      (
        await call(service.baseURL, "POST", ROUTES.retrieve.path, { key: service.apiKey, json: { query, top_k: 50, min_score: 0 } })
      ).json.memories.map((m: { id: number }) => m.id);
    const keyCount = async () =>
      (await page.evaluate(
        async (ws) => (await (await fetch(`/api/workspaces/${ws}/keys`)).json()).keys.length,
        service.workspaceId,
      )) as number;

    it("creates a key in Settings and shows it once; revoked there, the API answers 401 with it", async () => {
      await page.goto(`${ui.base}/#/w/${service.workspaceId}/settings`);
      await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
      await page.getByRole("button", { name: "Create a key" }).click();
      const shown = page.getByLabel("New API key");
      const key = await shown.inputValue();
      expect(key).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/);
      expect((await status(key)).status).toBe(200);
      const id = Number(/Key #(\d+) is ready/.exec((await page.getByRole("status").filter({ hasText: "is ready" }).textContent())!)![1]);
      await shot("7-key-created");
      await page.getByRole("button", { name: "I have copied it" }).click();
      expect(await page.content()).not.toContain(key);
      await page.reload();
      await page.getByRole("row", { name: new RegExp(`#${id}`) }).waitFor();
      expect(await page.content()).not.toContain(key);

      const row = page.getByRole("row", { name: new RegExp(`#${id}`) });
      await row.getByRole("button", { name: `Revoke key #${id}…` }).click();
      await row.getByRole("button", { name: `Yes, revoke key #${id}` }).click();
      await page.getByRole("row", { name: new RegExp(`#${id}.*revoked`) }).waitFor();
      expect((await status(key)).status).toBe(401);
      expect((await status(service.apiKey)).status).toBe(200);
      await shot("8-key-revoked");
    });

    it("forgets a memory from its page after a confirmation; recall no longer returns it", async () => {
      const target = stored[9]!.memory_id; // the office Wi-Fi
      const query = "what is the office wifi network called?";
      expect(await recallIds(query)).toContain(target);
      await page.goto(`${ui.base}/#/w/${service.workspaceId}/m/${target}`);
      await page.getByRole("heading", { level: 1, name: `Memory #${target}` }).waitFor();
      await page.getByRole("button", { name: "Forget this memory…" }).click();
      await page.getByRole("group", { name: "Confirm" }).getByText(`Forget memory #${target}?`).waitFor();
      expect(await recallIds(query)).toContain(target); // asking is not doing
      await page.getByRole("button", { name: "Yes, forget this memory" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `Memory #${target} was forgotten.` })
        .waitFor();
      expect(await recallIds(query)).not.toContain(target);
      await page.reload();
      await page.getByRole("alert").filter({ hasText: "not found" }).waitFor();
    });

    it("forgets the search results ticked (at first those scoring 0.5 or more) after showing them and asking", async () => {
      const query = "when are the coffee beans reordered?";
      const coffee = stored[16]!.memory_id;
      const invoices = stored[8]!.memory_id;
      // Each box's state when it first enters the page: the first ticks come with the results, in the same render,
      // never a frame later (when an effect set them, a loaded machine once read a box between the two).
      await page.evaluate(() => {
        const seen: Record<string, boolean> = {};
        Object.assign(window, { firstTicks: seen });
        new MutationObserver(() => {
          for (const el of document.querySelectorAll<HTMLInputElement>('input[type="checkbox"][aria-label^="Forget memory #"]'))
            seen[el.getAttribute("aria-label")!] ??= el.checked;
        }).observe(document.body, { subtree: true, childList: true });
      });
      await page.goto(`${ui.base}/#/w/${service.workspaceId}?q=${encodeURIComponent(query)}`);
      await page.getByRole("status").filter({ hasText: "found by meaning" }).waitFor();
      const firstTicks = await page.evaluate(() => (window as unknown as { firstTicks: Record<string, boolean> }).firstTicks);
      expect(firstTicks[`Forget memory #${coffee}`]).toBe(true);
      expect(firstTicks[`Forget memory #${invoices}`]).toBe(false);
      const box = (id: number) => page.getByRole("checkbox", { name: `Forget memory #${id}` });
      // only the relevant result is ticked at first; the person adds one more
      await expect(box(coffee).isChecked()).resolves.toBe(true);
      await expect(box(invoices).isChecked()).resolves.toBe(false);
      const ticked = await page.getByRole("checkbox", { checked: true }).count();
      expect(ticked).toBe(1);
      await box(invoices).check();
      const forget = page.getByRole("region", { name: "Forget memories" });
      await forget.getByRole("button", { name: "Forget the 2 memories ticked…" }).click();
      await forget.getByRole("group", { name: "Confirm" }).getByText(`#${invoices}`).waitFor();
      await shot("9-forget-preview");
      expect(await recallIds(query)).toContain(coffee); // asking is not doing
      await forget.getByRole("button", { name: /^Yes, forget/ }).click();
      await page.getByRole("status").filter({ hasText: "Forgot 2 memories" }).waitFor();
      const recalled = await recallIds(query);
      expect(recalled).not.toContain(coffee);
      expect(recalled).not.toContain(invoices);
      expect(recalled.length).toBeGreaterThan(0); // the others, not ticked, are still there
    });

    it("adds a webhook endpoint in Webhooks, shows its secret once, tests it, rotates the secret and removes it", async () => {
      await page.goto(`${ui.base}/#/w/${service.workspaceId}`);
      await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Webhooks" }).click();
      await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
      await page.getByText("No endpoints yet.").waitFor();

      // a target webhooks may not reach is refused with the reason, and nothing is added
      await page.getByLabel("Endpoint URL").fill("ftp://127.0.0.1/hooks");
      await page.getByRole("button", { name: "Add the endpoint" }).click();
      await page.getByRole("alert").filter({ hasText: "must be https" }).waitFor();
      await page.getByText("No endpoints yet.").waitFor();

      await page.getByLabel("Endpoint URL").fill(`${receiver.url}/brain`);
      await page.getByRole("checkbox", { name: "all lifecycle events" }).check();
      await page.getByText("or single anomalies events").click();
      await page.getByRole("checkbox", { name: "anomaly.auth_failures" }).check();
      await page.getByRole("button", { name: "Add the endpoint" }).click();
      const secret = await page.getByLabel("Signing secret").inputValue();
      expect(secret).toMatch(/^whsec_/);
      const id = Number(
        /Endpoint #(\d+) is added/.exec((await page.getByRole("status").filter({ hasText: "is added" }).textContent())!)![1],
      );
      const row = page.getByRole("row", { name: new RegExp(`#${id}`) });
      await row.getByText("lifecycle, anomaly.auth_failures").waitFor();
      await row.getByText("active").waitFor();
      await shot("10-webhook-added");
      await page.getByRole("button", { name: "I have copied it" }).click();
      await page.reload();
      await row.waitFor();
      expect(await page.content()).not.toContain(secret);

      // a test event, verified by the receiver with the secret shown, and logged as delivered
      receiver.setSecret(secret);
      await row.getByRole("button", { name: `Send a test event to #${id}` }).click();
      const delivered = page.getByRole("status").filter({ hasText: `delivered to endpoint #${id} (HTTP 204)` });
      await delivered.waitFor({ timeout: 20_000 });
      const msgId = /Test event (\S+) delivered/.exec((await delivered.textContent())!)![1]!;
      const [message] = (await receiver.waitFor((all) => all.some((m) => m.id === msgId))).filter((m) => m.id === msgId);
      expect(message).toMatchObject({ type: "webhook.test", path: "/brain" });
      expect(message!.verified).toBe(true);
      await page.getByRole("link", { name: `Deliveries of endpoint #${id}` }).click();
      await page.getByRole("heading", { level: 1, name: `Deliveries of endpoint #${id}` }).waitFor();
      const logged = page.getByRole("row", { name: new RegExp(msgId) });
      await logged.waitFor();
      await expect(logged.getByRole("cell").allTextContents()).resolves.toEqual(
        expect.arrayContaining(["webhook.test", "delivered", "1", "HTTP 204"]),
      );
      await shot("11-webhook-deliveries");
      await page.getByRole("link", { name: "Back to the webhooks" }).click();

      // a new secret, shown once; the next delivery is signed with it and not with the old one
      await row.getByRole("button", { name: `Rotate the secret of #${id}…` }).click();
      await row.getByRole("button", { name: `Yes, rotate the secret of #${id}` }).click();
      const rotated = await page.getByLabel("Signing secret").inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await row.getByRole("button", { name: `Send a test event to #${id}` }).click();
      const again = page.getByRole("status").filter({ hasText: /Test event \S+ delivered/ });
      await again.waitFor({ timeout: 20_000 });
      const secondId = /Test event (\S+) delivered/.exec((await again.textContent())!)![1]!;
      const second = (await receiver.waitFor((all) => all.some((m) => m.id === secondId))).find((m) => m.id === secondId)!;
      expect(second.verified).toBe(false); // the receiver knows only the old secret
      receiver.setSecret(rotated);
      expect(second.verified).toBe(true);

      await row.getByRole("button", { name: `Remove #${id}…` }).click();
      await row.getByRole("button", { name: `Yes, remove #${id}` }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `Endpoint #${id} is removed.` })
        .waitFor();
      await page.getByText("No endpoints yet.").waitFor();
    });

    it("refuses a change without the CSRF token, from another origin, and under a forged Host", async () => {
      await page.goto(`${ui.base}/#/w/${service.workspaceId}/settings`);
      await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
      const before = await keyCount();
      // the page's own origin and cookie, but no token
      const noToken = await page.evaluate(
        async (ws) => (await fetch(`/api/workspaces/${ws}/keys`, { method: "POST", credentials: "same-origin" })).status,
        service.workspaceId,
      );
      expect(noToken).toBe(403);

      // Another site on this machine posts a form to the dashboard: the browser sends the cookie (same site), but
      // its own Origin.
      attacker = createServer((_req, res) => {
        res.setHeader("Content-Type", "text/html");
        res.end(
          `<form id="f" method="POST" action="${ui.base}/api/workspaces/${service.workspaceId}/keys"><input name="x" value="1"></form>` +
            `<script>document.getElementById("f").submit()</script>`,
        );
      });
      await new Promise<void>((resolve) => attacker!.listen(0, "127.0.0.1", resolve));
      const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
      const other = await page.context().newPage(); // the same browser profile: the session's cookie is there
      try {
        const answered = other.waitForResponse((r) => r.url().includes("/keys"));
        await other.goto(attackerUrl);
        const response = await answered;
        expect(response.status()).toBe(403);
        expect(await response.text()).toContain("only from the dashboard's own page");

        // DNS rebinding: a name of the attacker's resolving to 127.0.0.1 is refused by its Host, read or change.
        const rebound = await other.goto(`http://${REBOUND_NAME}:${ui.port}/api/workspaces`);
        expect(rebound!.status()).toBe(403);
        const reboundPost = await other.evaluate(
          async (url) => (await fetch(url, { method: "POST" })).status,
          `http://${REBOUND_NAME}:${ui.port}/api/workspaces/${service.workspaceId}/keys`,
        );
        expect(reboundPost).toBe(403);
      } finally {
        await other.close();
      }
      expect(await keyCount()).toBe(before);
      elsewhere.length = 0; // the attacker's pages were this test's own doing
    });
  });
});
