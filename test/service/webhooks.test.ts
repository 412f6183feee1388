// Webhooks (issue 22, DESIGN.md "webhooks"): real `serve` and `admin` processes and a real receiver that verifies
// every delivery with the standardwebhooks library. Runs on SQLite, and on PostgreSQL under
// test/postgres/vitest.service.config.ts (each service here then gets a database of its own, so no other test's
// service delivers its events).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { webhookPayloadProblems } from "../support/openapi.js";
import { call, freshDatabase, startService, TEST_DATABASE_URL, type ServiceHandle } from "../support/service.js";
import { selfSignedCertificate } from "../support/tls.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fast schedules and small thresholds, so retries, disabling and bursts happen within a test. */
const FAST: NodeJS.ProcessEnv = {
  BRAIN_EMBEDDER: "lexical",
  BRAIN_WEBHOOK_ALLOW_PRIVATE: "1",
  BRAIN_WEBHOOK_POLL_MS: "100",
  BRAIN_WEBHOOK_RETRY_SCHEDULE: "0,0.2,0.2",
  BRAIN_WEBHOOK_TIMEOUT_MS: "1500",
  BRAIN_WEBHOOK_DISABLE_AFTER_FAILURES: "3",
  BRAIN_WEBHOOK_DISABLE_AFTER_HOURS: "0",
  BRAIN_WEBHOOK_PII_BURST: "3/60",
  BRAIN_WEBHOOK_AUTH_FAILURE_BURST: "3/60",
  BRAIN_WEBHOOK_RATE_LIMITED_BURST: "3/60",
  BRAIN_WEBHOOK_QUALITY_BELOW: "101",
  BRAIN_WEBHOOK_BILLING_CHECK_S: "0.2",
  BRAIN_PLAN_QUOTAS: "metered=2",
  BRAIN_WEBHOOK_USAGE_SHARES: "0.5,1",
  BRAIN_RATE_LIMIT_RPS: "1",
  BRAIN_RATE_LIMIT_BURST: "6",
};

/** Runs statements directly on the service's store (what the API cannot do: open a transaction and roll it back). */
async function onStore(
  svc: ServiceHandle,
  env: NodeJS.ProcessEnv,
  fn: (run: (sql: string, params?: unknown[]) => Promise<any[]>) => Promise<void>,
) {
  if (env.BRAIN_DATABASE_URL) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: env.BRAIN_DATABASE_URL });
    await client.connect();
    try {
      await fn(async (sql, params = []) => {
        let n = 0;
        return (
          await client.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows;
      });
    } finally {
      await client.end();
    }
    return;
  }
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(svc.dbPath!, { timeout: 15_000 });
  try {
    await fn(async (sql, params = []) => {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params);
      statement.run(...params);
      return [];
    });
  } finally {
    db.close();
  }
}

interface Endpoint {
  id: number;
  secret: string;
}

async function addEndpoint(svc: ServiceHandle, workspaceId: number, url: string, events?: string): Promise<Endpoint> {
  const out = await svc.adminJson(["webhook", "add", "--workspace", workspaceId, "--url", url, ...(events ? ["--events", events] : [])]);
  expect(out.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  return { id: out.id as number, secret: out.secret as string };
}

async function deliveries(svc: ServiceHandle, endpointId: number): Promise<any[]> {
  return (await svc.adminJson(["webhook", "deliveries", endpointId])).deliveries as any[];
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("webhooks from a running serve", () => {
  let env: NodeJS.ProcessEnv;
  let svc: ServiceHandle;
  let receiver: Receiver;

  beforeAll(async () => {
    env = { ...FAST, ...(await freshDatabase("webhooks")) };
    receiver = await startReceiver();
    svc = await startService({ env });
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  it("lifecycle changes reach the receiver signed per Standard Webhooks, and only subscribed endpoints get them", async () => {
    const ws = await svc.newWorkspace("lifecycle");
    const lifecycle = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/lifecycle`, "lifecycle");
    const billingOnly = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/billing-only`, "billing");
    receiver.setSecret(lifecycle.secret);

    const key = await svc.adminJson(["key", "create", ws.workspaceId]);
    await svc.adminJson(["key", "revoke", key.key_id as number]);
    await svc.adminJson(["workspace", "set-status", ws.workspaceId, "suspended"]);
    await svc.adminJson(["workspace", "set-status", ws.workspaceId, "active"]);

    const got = await receiver.waitFor((m) => m.filter((x) => x.path === "/lifecycle").length >= 4);
    const mine = got.filter((m) => m.path === "/lifecycle");
    expect(mine.map((m) => m.type).sort()).toEqual(["key.created", "key.revoked", "workspace.active", "workspace.suspended"]);
    for (const m of mine) {
      expect(m.verified).toBe(true);
      expect(m.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(m.id).toMatch(/^msg_/);
      expect(m.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(m.data.workspace_id).toBe(ws.workspaceId);
    }
    const created = mine.find((m) => m.type === "key.created")!;
    expect(created.data).toEqual({ workspace_id: ws.workspaceId, key_id: key.key_id, api_key_prefix: key.api_key_prefix });
    expect(JSON.stringify(created)).not.toContain(String(key.api_key));
    expect(mine.find((m) => m.type === "workspace.suspended")!.data).toMatchObject({ status: "suspended", previous_status: "active" });

    const log = await deliveries(svc, lifecycle.id);
    expect(log).toHaveLength(4);
    expect(log.every((d) => d.status === "delivered" && d.attempts === 1 && d.last_status_code === 204)).toBe(true);
    expect(receiver.received.some((m) => m.path === "/billing-only")).toBe(false);
    expect(await deliveries(svc, billingOnly.id)).toEqual([]);

    // The secret is shown once: list never prints it.
    const listed = await svc.admin(["webhook", "list", "--workspace", ws.workspaceId, "--json"]);
    expect(listed.stdout).not.toContain(lifecycle.secret);
    expect(JSON.parse(listed.stdout).endpoints).toHaveLength(2);
  });

  it("a change that rolls back writes no event and sends nothing; one committed by any tool is announced", async () => {
    const ws = await svc.newWorkspace("rollback");
    const endpoint = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/rollback`);
    receiver.setSecret(endpoint.secret);
    await onStore(svc, env, async (run) => {
      await run(env.BRAIN_DATABASE_URL ? "BEGIN" : "BEGIN IMMEDIATE");
      await run("UPDATE workspaces SET status = 'suspended' WHERE id = ?", [ws.workspaceId]);
      await run("UPDATE api_keys SET revoked_at = 1 WHERE id = ?", [ws.keyId]);
      await run("ROLLBACK");
      const outbox = await run(
        "SELECT count(*) AS n FROM webhook_events WHERE workspace_id = ? AND type IN ('workspace.suspended', 'key.revoked')",
        [ws.workspaceId],
      );
      expect(Number(outbox[0].n)).toBe(0);
    });
    // A test event goes through the same pipe afterwards, and is the only thing that arrives.
    const test = await svc.adminJson(["webhook", "test", endpoint.id]);
    expect(test.delivered).toBe(true);
    await sleep(500);
    expect(receiver.received.filter((m) => m.path === "/rollback").map((m) => m.type)).toEqual(["webhook.test"]);
    expect(receiver.received.find((m) => m.path === "/rollback")!.verified).toBe(true);

    // The same change committed by any other tool on the store (here plain SQL) is announced: the trigger writes it.
    await onStore(svc, env, async (run) => {
      await run("UPDATE workspaces SET status = 'suspended' WHERE id = ?", [ws.workspaceId]);
    });
    const got = await receiver.waitFor((m) => m.some((x) => x.path === "/rollback" && x.type === "workspace.suspended"));
    expect(got.find((m) => m.path === "/rollback" && m.type === "workspace.suspended")!.data).toMatchObject({
      workspace_id: ws.workspaceId,
      previous_status: "active",
    });
  });

  it("a failing receiver is retried with backoff until it answers 2xx, and the log shows the attempts", async () => {
    const ws = await svc.newWorkspace("retries");
    const endpoint = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/flaky`, "key.created");
    let calls = 0;
    receiver.respond((m) => (m.path === "/flaky" ? { status: ++calls <= 2 ? 503 : 200 } : { status: 204 }));
    await svc.adminJson(["key", "create", ws.workspaceId]);
    const got = await receiver.waitFor((m) => m.filter((x) => x.path === "/flaky").length >= 3);
    const attempts = got.filter((m) => m.path === "/flaky");
    expect(new Set(attempts.map((m) => m.id)).size).toBe(1); // one message, the same webhook-id on every attempt
    const [log] = await until("the delivery to be recorded", async () => {
      const rows = await deliveries(svc, endpoint.id);
      return rows[0]?.status === "delivered" && rows;
    });
    expect(log).toMatchObject({ status: "delivered", attempts: 3, last_status_code: 200, type: "key.created" });
    receiver.respond(() => ({ status: 204 }));
  });

  it("an endpoint that keeps failing gives up on the event, is disabled, and a lifecycle event says so", async () => {
    const ws = await svc.newWorkspace("disabling");
    const failing = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/down`);
    const watcher = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/watcher`, "endpoint.disabled");
    receiver.setSecret(watcher.secret);
    receiver.respond((m) => (m.path === "/down" ? { status: 500 } : { status: 204 }));
    await svc.adminJson(["key", "create", ws.workspaceId]);

    const got = await receiver.waitFor((m) => m.some((x) => x.path === "/watcher"));
    const notice = got.find((m) => m.path === "/watcher")!;
    expect(notice.type).toBe("endpoint.disabled");
    expect(notice.verified).toBe(true);
    expect(notice.data).toMatchObject({ workspace_id: ws.workspaceId, endpoint_id: failing.id, failed_attempts: 3 });
    expect(got.filter((m) => m.path === "/down")).toHaveLength(3); // the schedule's three attempts, then no more

    const [log] = await deliveries(svc, failing.id);
    expect(log).toMatchObject({ status: "failed", attempts: 3, last_status_code: 500, next_attempt_at: null });
    expect(log.last_error).toContain("HTTP 500");
    const listed = (await svc.adminJson(["webhook", "list", "--workspace", ws.workspaceId])).endpoints as any[];
    expect(listed.find((e) => e.id === failing.id)).toMatchObject({ disabled: true });
    expect(svc.stderr()).toContain("webhook endpoint disabled");

    // Disabled: new events are not sent to it; enabled again, it is.
    await svc.adminJson(["key", "create", ws.workspaceId]);
    await sleep(600);
    expect(receiver.received.filter((m) => m.path === "/down")).toHaveLength(3);
    receiver.respond(() => ({ status: 204 }));
    await svc.adminJson(["webhook", "enable", failing.id]);
    await svc.adminJson(["key", "create", ws.workspaceId]);
    await receiver.waitFor((m) => m.filter((x) => x.path === "/down").length >= 4);

    // Removed: gone from the list with its delivery log, and sent nothing more.
    expect(await svc.adminJson(["webhook", "remove", failing.id])).toMatchObject({ removed: true });
    const after = (await svc.adminJson(["webhook", "list", "--workspace", ws.workspaceId])).endpoints as any[];
    expect(after.map((e) => e.id)).toEqual([watcher.id]);
    expect((await svc.admin(["webhook", "deliveries", failing.id])).stderr).toContain(`no webhook endpoint with id ${failing.id}`);
    const sent = receiver.received.filter((m) => m.path === "/down").length;
    await svc.adminJson(["key", "create", ws.workspaceId]);
    await sleep(600);
    expect(receiver.received.filter((m) => m.path === "/down")).toHaveLength(sent);
  });

  it("a redirect is not followed and a slow receiver is cut off at the response time limit", async () => {
    const ws = await svc.newWorkspace("redirects");
    const moved = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/moved`, "key.created");
    const slow = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/slow`, "key.created");
    receiver.respond((m) =>
      m.path === "/moved"
        ? { status: 301, location: `${receiver.url}/elsewhere` }
        : m.path === "/slow"
          ? { status: 200, delayMs: 5_000 }
          : { status: 204 },
    );
    await svc.adminJson(["key", "create", ws.workspaceId]);
    const [movedLog] = await until("the redirect to be recorded", async () => {
      const rows = await deliveries(svc, moved.id);
      return rows[0]?.last_error && rows;
    });
    expect(movedLog.last_status_code).toBe(301);
    expect(movedLog.last_error).toContain("redirect not followed");
    const [slowLog] = await until("the slow attempt to be recorded", async () => {
      const rows = await deliveries(svc, slow.id);
      return rows[0]?.last_error && rows;
    });
    expect(slowLog.last_error).toContain("no answer within 1500 ms");
    expect(receiver.received.some((m) => m.path === "/elsewhere")).toBe(false);
    receiver.respond(() => ({ status: 204 }));
  });

  /** The card the PII test stores, with or without its separators, or the words around it. */
  const REJECTED_CARD = /4111[\s-]?1111[\s-]?1111[\s-]?1111|card number/;

  it("bursts of PII rejections, revoked-key failures and rate limiting, and a low quality score, are anomaly events", async () => {
    const ws = await svc.newWorkspace("anomalies");
    const endpoint = await addEndpoint(svc, ws.workspaceId, `${receiver.url}/anomalies`, "anomalies");
    receiver.setSecret(endpoint.secret);
    for (let i = 0; i < 3; i++) {
      const res = await call(svc.baseURL, "POST", "/v1/memory/store", {
        key: ws.apiKey,
        json: { text: `My card number is 4111 1111 1111 1111 (${i}).` },
      });
      expect(res.status).toBe(422);
    }
    const revoked = await svc.adminJson(["key", "create", ws.workspaceId]);
    await svc.adminJson(["key", "revoke", revoked.key_id as number]);
    for (let i = 0; i < 3; i++) expect((await call(svc.baseURL, "GET", "/v1/status", { key: String(revoked.api_key) })).status).toBe(401);
    const limited = await svc.adminJson(["key", "create", ws.workspaceId]);
    let refused = 0;
    for (let i = 0; i < 12; i++)
      if ((await call(svc.baseURL, "GET", "/v1/status", { key: String(limited.api_key) })).status === 429) refused++;
    expect(refused).toBeGreaterThanOrEqual(3);
    await sleep(1_100);
    expect((await call(svc.baseURL, "GET", "/v1/optimize/health", { key: ws.apiKey })).status).toBe(200);
    await sleep(1_100);
    expect((await call(svc.baseURL, "GET", "/v1/optimize/health", { key: ws.apiKey })).status).toBe(200);

    const expected = ["anomaly.auth_failures", "anomaly.pii_rejections", "anomaly.quality_score_low", "anomaly.rate_limited"];
    const got = await receiver.waitFor((m) => expected.every((t) => m.some((x) => x.path === "/anomalies" && x.type === t)));
    await sleep(500);
    const mine = got.filter((m) => m.path === "/anomalies");
    // Each announced once (the quality score stayed low across two health reports: one event).
    expect(mine.map((m) => m.type).sort()).toEqual(expected);
    expect(mine.every((m) => m.verified && m.data.workspace_id === ws.workspaceId)).toBe(true);
    expect(mine.find((m) => m.type === "anomaly.pii_rejections")!.data).toMatchObject({ count: 3, threshold: 3, window_seconds: 60 });
    // The rejected text in any spelling (random ids may hold "4111": the card's 16 digits and the words may not).
    expect(JSON.stringify(mine)).not.toMatch(REJECTED_CARD);
    expect(mine.find((m) => m.type === "anomaly.quality_score_low")!.data.threshold).toBe(101);
  });

  it("usage crossing each configured share of the plan's quota is announced once per cycle", async () => {
    const made = await svc.adminJson(["workspace", "create", "--name", "billing", "--plan", "metered"]);
    const workspaceId = made.workspace_id as number;
    const endpoint = await addEndpoint(svc, workspaceId, `${receiver.url}/billing`, "billing");
    receiver.setSecret(endpoint.secret);
    for (const text of ["The Lisbon office opens at nine.", "Quarterly taxes are filed by Maria."]) {
      expect((await call(svc.baseURL, "POST", "/v1/memory/store", { key: String(made.api_key), json: { text } })).status).toBe(200);
      await sleep(200);
    }
    const got = await receiver.waitFor((m) => m.filter((x) => x.path === "/billing").length >= 2);
    await sleep(800); // further checks must not announce the same crossing again
    const mine = got.filter((m) => m.path === "/billing");
    expect(mine).toHaveLength(2);
    expect(mine.every((m) => m.type === "billing.usage_threshold" && m.verified)).toBe(true);
    expect(mine.map((m) => m.data.share).sort()).toEqual([0.5, 1]);
    expect(mine.find((m) => m.data.share === 1)!.data).toMatchObject({
      workspace_id: workspaceId,
      plan: "metered",
      quota_writes: 2,
      writes: 2,
    });
  });

  it("when a billing cycle has ended, its usage summary is sent once", async () => {
    const made = await svc.adminJson(["workspace", "create", "--name", "cycles", "--plan", "metered", "--billing-cycle", "daily"]);
    const workspaceId = made.workspace_id as number;
    const day = 86_400_000;
    const created = Math.floor((Date.now() - 1.5 * day) / 1000) * 1000; // the store renders seconds
    // A day and a half have passed since the workspace was made: its first daily cycle is over.
    await onStore(svc, env, async (run) => {
      await run("UPDATE workspaces SET created_at = ? WHERE id = ?", [created, workspaceId]);
      for (const [kind, at] of [
        ["write", created + 1_000],
        ["write", created + 2_000],
        ["read", created + 3_000],
        ["write", created + day + 1_000],
      ] as const) {
        await run("INSERT INTO usage_events (workspace_id, kind, memory_id, created_at) VALUES (?, ?, NULL, ?)", [workspaceId, kind, at]);
      }
    });
    const endpoint = await addEndpoint(svc, workspaceId, `${receiver.url}/cycles`, "billing.cycle_summary");
    receiver.setSecret(endpoint.secret);
    const got = await receiver.waitFor((m) => m.some((x) => x.path === "/cycles"));
    await sleep(800);
    const mine = got.filter((m) => m.path === "/cycles");
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ type: "billing.cycle_summary", verified: true });
    expect(mine[0]!.data).toMatchObject({
      workspace_id: workspaceId,
      billing_cycle: "daily",
      cycle_start: new Date(created).toISOString().replace(/\.\d{3}Z$/, "Z"),
      cycle_end: new Date(created + day).toISOString().replace(/\.\d{3}Z$/, "Z"),
      quota_writes: 2,
      writes: 2,
      reads: 1,
    });
  });

  it("every event delivered above matches its payload in the OpenAPI document's webhooks section", () => {
    const types = new Set(receiver.received.map((m) => m.type));
    expect(types.size).toBeGreaterThanOrEqual(12);
    expect(receiver.received.flatMap((m) => webhookPayloadProblems(m.body))).toEqual([]);
  });

  it("no signing secret, API key or rejected text reached serve's log", () => {
    const log = svc.stderr();
    expect(log).toContain("webhook delivery failed"); // the log did record the deliveries above
    expect(log).not.toMatch(/whsec_|svc_ws_[A-Za-z0-9]{20}/);
    expect(log).not.toMatch(REJECTED_CARD);
  });
});

describe("webhook targets", () => {
  it("without BRAIN_WEBHOOK_ALLOW_PRIVATE, private and plain-http URLs are refused and nothing is written; an unresolvable name is accepted with a warning", async () => {
    const extra = await freshDatabase("webhooks");
    const svc = await startService({ env: { BRAIN_EMBEDDER: "lexical", ...extra } });
    try {
      for (const url of [
        "http://127.0.0.1:9/x",
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://10.1.2.3/x",
        "https://[::1]/x",
        "https://169.254.169.254/latest",
        "ftp://example.com/x",
      ]) {
        const res = await svc.admin(["webhook", "add", "--workspace", svc.workspaceId, "--url", url]);
        expect(res.code, url).not.toBe(0);
        expect(res.stderr, url).toMatch(/https|private|loopback/);
      }
      expect((await svc.adminJson(["webhook", "list"])).endpoints).toEqual([]);

      const unknown = await svc.admin([
        "webhook",
        "add",
        "--workspace",
        svc.workspaceId,
        "--url",
        "https://example.com/x",
        "--events",
        "lifecycle,bogus",
      ]);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain('unknown webhook category or event type "bogus"');
      const noUrl = await svc.admin(["webhook", "add", "--workspace", svc.workspaceId]);
      expect(noUrl.code).toBe(2);
      expect((await svc.admin(["webhook", "remove", "abc"])).code).toBe(2);
      for (const action of ["remove", "rotate-secret", "enable", "test", "deliveries"]) {
        const missing = await svc.admin(["webhook", action, 999]);
        expect(missing.code, action).toBe(1);
        expect(missing.stderr, action).toContain("no webhook endpoint with id 999");
      }
      expect((await svc.adminJson(["webhook", "list"])).endpoints).toEqual([]);

      // A name that does not resolve (yet) is accepted with a warning: each delivery resolves and checks it.
      const later = await svc.admin([
        "webhook",
        "add",
        "--workspace",
        svc.workspaceId,
        "--url",
        "https://hooks.brain-test.invalid/x",
        "--json",
      ]);
      expect(later.code, later.stderr).toBe(0);
      expect(later.stderr).toMatch(/warning: cannot resolve hooks\.brain-test\.invalid/);
    } finally {
      await svc.stop();
    }
  });

  it("at delivery the resolved address is checked again: a private target is refused when the flag is off", async () => {
    const receiver = await startReceiver();
    const extra = await freshDatabase("webhooks");
    // Added while the flag was on; this serve runs without it.
    const svc = await startService({
      env: { BRAIN_EMBEDDER: "lexical", BRAIN_WEBHOOK_POLL_MS: "100", BRAIN_WEBHOOK_RETRY_SCHEDULE: "0", ...extra },
    });
    try {
      // A name that resolves to loopback, over https: refused on its resolved address, not its form.
      const inside = `https://localhost:${new URL(receiver.url).port}/inside`;
      const added = await svc.admin(["webhook", "add", "--workspace", svc.workspaceId, "--url", inside]);
      expect(added.code).not.toBe(0);
      expect(added.stderr).toMatch(/resolves to a loopback, private or link-local address/);
      const { runCli, baseEnv } = await import("../support/service.js");
      const forced = await runCli(
        ["admin", "webhook", "add", "--workspace", String(svc.workspaceId), "--url", inside, "--json", ...svc.storeArgs],
        {
          env: baseEnv({ BRAIN_EMBEDDER: "lexical", BRAIN_WEBHOOK_ALLOW_PRIVATE: "1", ...extra }),
        },
      );
      expect(forced.code).toBe(0);
      const id = JSON.parse(forced.stdout).id as number;
      await svc.adminJson(["key", "create", svc.workspaceId]);
      const [log] = await until("the refusal to be recorded", async () => {
        const rows = await deliveries(svc, id);
        return rows[0]?.status === "failed" && rows;
      });
      expect(log.last_error).toMatch(/loopback, private or link-local/);
      expect(log.last_status_code).toBeNull();
      expect(receiver.received).toEqual([]);
    } finally {
      await svc.stop();
      await receiver.close();
    }
  });
});

describe("admin webhook test", () => {
  it("sends its own event only: another endpoint's delivery this process's settings would refuse stays pending for serve", async () => {
    const receiver = await startReceiver();
    const extra = await freshDatabase("webhooks");
    const { runCli, baseEnv } = await import("../support/service.js");
    // A serve that allows private targets, its next pass ten minutes away: the outbox waits while the test runs.
    const slow = { ...FAST, ...extra, BRAIN_WEBHOOK_POLL_MS: "600000" };
    const first = await startService({ env: slow });
    let second: ServiceHandle | undefined;
    try {
      const other = await addEndpoint(first, first.workspaceId, `${receiver.url}/other`, "key.created");
      const tested = await addEndpoint(first, first.workspaceId, `${receiver.url}/tested`, "anomalies");
      receiver.setSecret(other.secret);
      await first.adminJson(["key", "create", first.workspaceId]); // an event for `other`, not yet sent
      // The caller refuses private targets and gives up after one attempt: a whole outbox pass would end `other`'s event.
      const strict = { ...FAST, ...extra, BRAIN_WEBHOOK_ALLOW_PRIVATE: "", BRAIN_WEBHOOK_RETRY_SCHEDULE: "0" };
      const test = await runCli(["admin", "webhook", "test", String(tested.id), ...first.storeArgs], { env: baseEnv(strict) });
      expect(test.code).toBe(1);
      expect(test.stderr).toMatch(/must be https|loopback, private or link-local/); // its own event, refused by its settings
      const pending = await deliveries(first, other.id);
      expect(pending.filter((d) => d.status !== "pending" || d.attempts > 0 || d.last_error !== null)).toEqual([]);
      expect(receiver.received).toEqual([]);
      await first.stop();

      second = await startService({ env: { ...FAST, ...extra }, dbPath: first.dbPath, noWorkspace: true });
      const [message] = await receiver.waitFor((m) => m.some((x) => x.path === "/other"));
      expect(message).toMatchObject({ type: "key.created", verified: true, path: "/other" });
      const [log] = await until("the delivery to be recorded", async () => {
        const rows = await deliveries(second!, other.id);
        return rows[0]?.status === "delivered" && rows;
      });
      expect(log.attempts).toBe(1);
    } finally {
      await second?.stop();
      await first.stop();
      await receiver.close();
    }
  });
});

describe("delivery over https", () => {
  it("reaches an https receiver by name, its certificate checked against that name on the pinned address", async () => {
    const { dir } = selfSignedCertificate("DNS:localhost");
    const receiver = await startReceiver({ tls: { cert: readFileSync(join(dir, "cert.pem")), key: readFileSync(join(dir, "key.pem")) } });
    const extra = await freshDatabase("webhooks");
    // The test's own certificate authority, trusted by this serve only.
    const svc = await startService({ env: { ...FAST, ...extra, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") } });
    try {
      const endpoint = await addEndpoint(svc, svc.workspaceId, `${receiver.url}/tls`, "key.created");
      receiver.setSecret(endpoint.secret);
      await svc.adminJson(["key", "create", svc.workspaceId]);
      const [message] = await receiver.waitFor((m) => m.length >= 1);
      expect(message).toMatchObject({ type: "key.created", verified: true, path: "/tls" });
      expect(message!.headers.host).toBe(new URL(receiver.url).host);
    } finally {
      await svc.stop();
      await receiver.close();
    }
  });
});

describe("delivery through a crash", () => {
  it("a delivery in flight when serve is killed is sent again once its lease lapses, with the same webhook-id", async () => {
    const receiver = await startReceiver();
    const extra = await freshDatabase("webhooks");
    // Lease: 2 × 1500 ms + 5 s. The receiver holds the first attempt open until after the kill.
    const first = await startService({ env: { ...FAST, ...extra } });
    let second: ServiceHandle | undefined;
    try {
      const endpoint = await addEndpoint(first, first.workspaceId, `${receiver.url}/inflight`, "key.created");
      receiver.setSecret(endpoint.secret);
      receiver.respond((_m, i) => (i === 0 ? { status: 200, delayMs: 1_000 } : { status: 200 }));
      await first.adminJson(["key", "create", first.workspaceId]);
      await receiver.waitFor((m) => m.length >= 1);
      await first.kill();
      second = await startService({ env: { ...FAST, ...extra }, dbPath: first.dbPath, noWorkspace: true });
      const got = await receiver.waitFor((m) => m.length >= 2, 30_000);
      expect(got[1]!.id).toBe(got[0]!.id);
      expect(got.every((m) => m.type === "key.created" && m.verified)).toBe(true);
      const [log] = await until("the delivery to be recorded", async () => {
        const rows = await deliveries(second!, endpoint.id);
        return rows[0]?.status === "delivered" && rows;
      });
      expect(log.attempts).toBe(2);
    } finally {
      await second?.stop();
      await first.stop();
      await receiver.close();
    }
  });

  it("an event written just before serve is killed with SIGKILL is delivered after the restart", async () => {
    const receiver = await startReceiver();
    const extra = await freshDatabase("webhooks");
    const slow = { ...FAST, ...extra, BRAIN_WEBHOOK_POLL_MS: "600000" };
    const first = await startService({ env: slow });
    let second: ServiceHandle | undefined;
    try {
      const endpoint = await addEndpoint(first, first.workspaceId, `${receiver.url}/crash`, "lifecycle");
      receiver.setSecret(endpoint.secret);
      await sleep(1_000); // the worker's pass at start is over; the next is ten minutes away
      await first.adminJson(["workspace", "set-status", first.workspaceId, "limit_reached"]);
      await first.kill();
      expect(receiver.received).toEqual([]);

      second = await startService({ env: { ...FAST, ...extra }, dbPath: first.dbPath, noWorkspace: true });
      const got = await receiver.waitFor((m) => m.length >= 1);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ type: "workspace.limit_reached", verified: true });
      expect(got[0]!.data).toMatchObject({ workspace_id: first.workspaceId, status: "limit_reached", previous_status: "active" });
    } finally {
      await second?.stop();
      await first.stop();
      await receiver.close();
    }
  });
});
