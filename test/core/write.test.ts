// The write pipeline through openService over a real SQLite file: dedup, PII, idempotency, usage, isolation.
import { VERSION } from "../../src/version.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../src/service/types.js";
import { openTestService, pinnedClock, tempDir, testJudge, workspaceOf } from "./support.js";
import { expectNoCardNumber } from "../support/card.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function usage(dbPath: string, workspaceId: number) {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db.prepare("SELECT kind, count(*) AS n FROM usage_events WHERE workspace_id = ? GROUP BY kind").all(workspaceId) as {
      kind: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.kind, r.n])) as { write?: number; read?: number };
  } finally {
    db.close();
  }
}

describe("dedup", () => {
  const dbPath = join(tmp.dir, "dedup.db");
  let service: Awaited<ReturnType<typeof openTestService>>;
  beforeAll(async () => {
    service = await openTestService(dbPath);
  });
  afterAll(() => service.close());

  it("a restatement of a stored fact merges into it, keeping the richer text, max importance and merged meta", async () => {
    const { auth } = await workspaceOf(service);
    const first = await service.store(auth, { text: "deploy target is eu west 1", meta: { a: 1, b: 1 } }, {});
    expect(first.dedup).toEqual({ action: "stored_new", existing_id: null });
    expect(first).toMatchObject({ memory_id: expect.any(Number), workspace_id: auth.workspace.id });
    expect(Number.isSafeInteger(first.memory_id) && first.memory_id > 0).toBe(true);
    // The specification's fields, in its order, and nothing else.
    expect(Object.keys(first)).toEqual(["status", "memory_id", "workspace_id", "dedup", "importance", "categories", "temporal"]);
    expect(first.importance).toBe(5);

    const second = await service.store(auth, { text: "deploy target is eu west 1 region", meta: { b: 2, c: 3 } }, {});
    expect(second.dedup).toEqual({ action: "merged", existing_id: first.memory_id });
    expect(second.memory_id).toBe(first.memory_id);

    // The shorter restatement merges too: the richer text stays, importance rises to the higher rating.
    const third = await service.store(auth, { text: "deploy target is eu west 1!!!!!!!!", meta: {} }, {});
    expect(third.dedup).toEqual({ action: "merged", existing_id: first.memory_id });
    expect(third.importance).toBe(8);

    const got = await service.retrieve(auth, { query: "deploy target", top_k: 5, min_score: 0 });
    expect(got.count).toBe(1);
    expect(got.memories[0]!.text).toBe("deploy target is eu west 1 region");
    expect(got.memories[0]!.importance).toBe(8);
    expect(got.memories[0]!.meta).toMatchObject({ a: 1, b: 2, c: 3, categories: ["work", "project"] });
    expect((await service.status(auth)).memory_count).toBe(1);
  });

  it("a different fact is stored as a new memory", async () => {
    const { auth } = await workspaceOf(service);
    const a = await service.store(auth, { text: "the build uses node 20 and vitest", meta: {} }, {});
    const b = await service.store(auth, { text: "the staging database is postgres 16", meta: {} }, {});
    expect(b.dedup).toEqual({ action: "stored_new", existing_id: null });
    expect(b.memory_id).not.toBe(a.memory_id);
    expect((await service.status(auth)).memory_count).toBe(2);
  });

  it("identical stores at the same moment in one process produce one memory", async () => {
    const { auth } = await workspaceOf(service);
    const results = await Promise.all(
      Array.from({ length: 12 }, () => service.store(auth, { text: "the on call rotation changes every monday", meta: {} }, {})),
    );
    expect(new Set(results.map((r) => r.memory_id)).size).toBe(1);
    expect(results.filter((r) => r.dedup.action === "stored_new")).toHaveLength(1);
    expect((await service.status(auth)).memory_count).toBe(1);
  });

  it("the judge's answers are validated: importance clamped to 1..10, invalid categories and dates fall back", async () => {
    const wild = await openTestService(join(tmp.dir, "wild.db"), {
      judge: testJudge({
        importance: 42.7,
        temporal: { type: "time_bound", valid_until: "not a date" },
        categories: ["technical", "code", "nonsense", "code"],
      }),
    });
    try {
      const { auth } = await workspaceOf(wild);
      const r = await wild.store(auth, { text: "refactor the parser module", meta: {} }, {});
      expect(r.importance).toBe(10);
      expect(r.temporal).toEqual({ type: "persistent", valid_until: null });
      expect(r.categories).toEqual(["technical", "code"]);
    } finally {
      await wild.close();
    }
  });

  it("a time-bound judgement is rendered as ISO 8601 UTC with second precision", async () => {
    const { auth } = await workspaceOf(service);
    const r = await service.store(auth, { text: "the freeze lasts until 2025-07-04", meta: {} }, {});
    expect(r.temporal).toEqual({ type: "time_bound", valid_until: "2025-07-04T00:00:00Z" });
  });
});

describe("PII screening", () => {
  it("a store with a credit card number is rejected and nothing is written", async () => {
    const dbPath = join(tmp.dir, "pii.db");
    const service = await openTestService(dbPath);
    const { auth, ws } = await workspaceOf(service);
    const err = await service
      .store(auth, { text: "my card is 4111 1111 1111 1111 exp 12/29", meta: {} }, { idempotencyKey: "k1" })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe("pii_detected");
    expect(err.details.pii_types).toEqual(["credit_card"]);
    expectNoCardNumber(err.message);
    expect((await service.status(auth)).memory_count).toBe(0);
    expect(usage(dbPath, ws.id)).toEqual({});
    await service.close();
    for (const file of [dbPath, `${dbPath}-wal`]) {
      let bytes = "";
      try {
        bytes = readFileSync(file).toString("latin1");
      } catch {}
      expect(bytes).not.toContain("4111 1111");
    }
  });
});

describe("idempotency and usage events", () => {
  const dbPath = join(tmp.dir, "idem.db");
  const clock = pinnedClock("2025-03-01T00:00:00Z");
  let service: Awaited<ReturnType<typeof openTestService>>;
  beforeAll(async () => {
    service = await openTestService(dbPath, { clock });
  });
  afterAll(() => service.close());

  it("a repeat of the same key and body returns the first response and records nothing", async () => {
    const { auth, ws } = await workspaceOf(service);
    const first = await service.store(auth, { text: "ship the beta on the first of april", meta: { x: 1 } }, { idempotencyKey: "abc" });
    clock.advanceMs(60_000);
    const again = await service.store(auth, { text: "ship the beta on the first of april", meta: { x: 1 } }, { idempotencyKey: "abc" });
    expect(again).toEqual(first);
    expect(usage(dbPath, ws.id)).toEqual({ write: 1 });
    expect((await service.status(auth)).memory_count).toBe(1);
  });

  it("the same key with a different body is refused as idempotency_key_reused", async () => {
    const { auth } = await workspaceOf(service);
    await service.store(auth, { text: "the invoice run is on the fifth", meta: {} }, { idempotencyKey: "same" });
    const err = await service.store(auth, { text: "something else entirely", meta: {} }, { idempotencyKey: "same" }).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe("idempotency_key_reused");
    expect((await service.status(auth)).memory_count).toBe(1);
  });

  it("a key is per workspace and forgotten after 24 hours", async () => {
    const a = await workspaceOf(service, "a");
    const b = await workspaceOf(service, "b");
    await service.store(a.auth, { text: "alpha fact one", meta: {} }, { idempotencyKey: "shared" });
    const other = await service.store(b.auth, { text: "beta fact two", meta: {} }, { idempotencyKey: "shared" });
    expect(other.dedup.action).toBe("stored_new");
    clock.advanceMs(24 * 3600_000 + 1000);
    const later = await service.store(a.auth, { text: "different fact three", meta: {} }, { idempotencyKey: "shared" });
    expect(later.dedup.action).toBe("stored_new");
  });

  it("concurrent requests with one key store once", async () => {
    const { auth, ws } = await workspaceOf(service);
    const body = { text: "the retro moves to thursday", meta: {} };
    const results = await Promise.all(Array.from({ length: 6 }, () => service.store(auth, body, { idempotencyKey: "race" })));
    for (const r of results) expect(r).toEqual(results[0]);
    expect(usage(dbPath, ws.id)).toEqual({ write: 1 });
  });

  it("store records a write (a merge too), retrieve a read; status and health record nothing", async () => {
    const { auth, ws } = await workspaceOf(service);
    await service.store(auth, { text: "the api gateway runs envoy", meta: {} }, {});
    await service.store(auth, { text: "the api gateway runs envoy", meta: {} }, {});
    await service.retrieve(auth, { query: "gateway", top_k: 5, min_score: 0 });
    await service.retrieve(auth, { query: "unrelated words only", top_k: 5, min_score: 0 });
    await service.status(auth);
    await service.health(auth);
    expect(usage(dbPath, ws.id)).toEqual({ write: 2, read: 2 });
  });
});

describe("workspaces and keys", () => {
  const dbPath = join(tmp.dir, "ws.db");
  let service: Awaited<ReturnType<typeof openTestService>>;
  beforeAll(async () => {
    service = await openTestService(dbPath);
  });
  afterAll(() => service.close());

  it("memories of one workspace are invisible to another", async () => {
    const a = await workspaceOf(service, "a");
    const b = await workspaceOf(service, "b");
    const ra = await service.store(a.auth, { text: "kafka retention is seven days", meta: {} }, {});
    const rb = await service.store(b.auth, { text: "kafka retention is seven days", meta: {} }, {});
    expect(rb.dedup.action).toBe("stored_new");
    expect(rb.memory_id).not.toBe(ra.memory_id);
    const got = await service.retrieve(b.auth, { query: "kafka retention", top_k: 50, min_score: 0 });
    expect(got.memories.map((m) => m.id)).toEqual([rb.memory_id]);
  });

  it("a new workspace defaults to the free plan, monthly billing, active", async () => {
    const ws = await service.createWorkspace({ name: "defaults" });
    expect(ws).toMatchObject({ name: "defaults", plan: "free", billing_cycle: "monthly", status: "active" });
    expect(Number.isSafeInteger(ws.id) && ws.id > 0).toBe(true);
    // Ids come from the store, one after another, never the same twice.
    expect((await service.createWorkspace({ name: "next" })).id).toBe(ws.id + 1);
    expect(ws.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("keys are svc_ws_ plus 32 base62 characters, stored only as SHA-256, and revocable", async () => {
    const { ws, key, auth } = await workspaceOf(service);
    expect(key.apiKey).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/);
    expect(key.prefix).toBe(key.apiKey.slice(0, 11));
    expect(Number.isSafeInteger(key.keyId) && key.keyId > 0).toBe(true);
    expect(auth.keyId).toBe(key.keyId);
    expect(auth.workspace.id).toBe(ws.id);
    expect(auth.keyPrefix).toBe(key.prefix);
    const db = new Database(dbPath, { readonly: true });
    const dump = JSON.stringify(db.prepare("SELECT * FROM api_keys").all());
    db.close();
    expect(dump).not.toContain(key.apiKey);
    expect(await service.revokeKey(key.keyId)).toBe(true);
    expect(await service.authenticate(key.apiKey)).toBeNull();
    expect(await service.revokeKey(key.keyId)).toBe(false);
    expect(await service.authenticate("svc_ws_nonexistent000000000000000000")).toBeNull();
  });

  it("a key with an older prefix is imported and authenticates the same way", async () => {
    const ws = await service.createWorkspace({ name: "legacy", plan: "pro", billing_cycle: "annual" });
    const imported = await service.importKey(ws.id, "brain_live_7Qm2xK9pR4vT1nW8zB3cYd5e");
    expect(imported.prefix).toBe("brain_live_");
    const auth = await service.authenticate("brain_live_7Qm2xK9pR4vT1nW8zB3cYd5e");
    expect(auth?.workspace).toMatchObject({ id: ws.id, plan: "pro", billing_cycle: "annual" });
    const status = await service.status(auth!);
    expect(status).toMatchObject({
      workspace_id: ws.id,
      api_key_id: imported.keyId,
      api_key_prefix: "brain_live_",
      workspace_name: "legacy",
      plan_name: "pro",
      healthy: true,
      version: VERSION,
    });
    expect(Object.keys(status)).toEqual([
      "workspace_id",
      "workspace_name",
      "workspace_status",
      "plan_name",
      "billing_cycle",
      "api_key_id",
      "api_key_prefix",
      "healthy",
      "server_time",
      "memory_count",
      "version",
    ]);
  });

  it("status reports a deleted workspace as deleted", async () => {
    const { ws, key } = await workspaceOf(service);
    await service.setWorkspaceStatus(ws.id, "deleted");
    const auth = await service.authenticate(key.apiKey);
    expect(auth?.workspace.status).toBe("deleted");
    const status = await service.status(auth!);
    expect(status.workspace_status).toBe("deleted");
    expect(status.server_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await service.countWorkspaces()).toBeGreaterThan(1);
  });
});
