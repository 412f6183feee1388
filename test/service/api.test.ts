// The API contract (DESIGN.md "The API contract") over real HTTP against a real `brain-mcp serve` process.
import { readFileSync, existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isValidCategoryList } from "../../src/contract/taxonomy.js";
import { API_KEY_PUBLIC_PREFIX_CHARS, TEXT_MAX_CHARS } from "../../src/contract/limits.js";
import { REQUEST_ID_PATTERN } from "../../src/contract/wire.js";
import { call, startService, TEST_DATABASE_URL, usageCounts, type ServiceHandle } from "../support/service.js";
import { expectNoCardNumber } from "../support/card.js";

// Real processes on a shared 2-core machine: starting one loads the models, which can take seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ISO_UTC_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

let svc: ServiceHandle;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(svc.baseURL, method, path, opts);
const store = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  api("POST", "/v1/memory/store", { key, json: body, headers });
const retrieve = (key: string, body: unknown) => api("POST", "/v1/memory/retrieve", { key, json: body });
const status = (key: string) => api("GET", "/v1/status", { key });

function expectError(res: Awaited<ReturnType<typeof call>>, httpStatus: number, code: string) {
  expect(res.status, res.text).toBe(httpStatus);
  expect(res.json?.error?.code, res.text).toBe(code);
  const requestId = res.headers.get("x-request-id");
  expect(requestId).toMatch(REQUEST_ID_PATTERN);
  expect(res.json.error.request_id).toBe(requestId);
  expect(typeof res.json.error.type).toBe("string");
  expect(typeof res.json.error.message).toBe("string");
  return res.json.error as Record<string, any>;
}

beforeAll(async () => {
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
});

describe("successful answers", () => {
  it("store answers 200 with status ok, a memory id, importance, temporal, categories and dedup", async () => {
    const res = await store(svc.apiKey, { text: "  Our team's standup moves to 9:30 every weekday.  ", meta: { source: "test" } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = res.json;
    expect(body.status).toBe("ok");
    // The specification's fields in its order, integer ids, nothing else.
    expect(Object.keys(body)).toEqual(["status", "memory_id", "workspace_id", "dedup", "importance", "categories", "temporal"]);
    expect(Number.isSafeInteger(body.memory_id) && body.memory_id > 0).toBe(true);
    expect(body.workspace_id).toBe(svc.workspaceId);
    expect(Number.isInteger(body.importance)).toBe(true);
    expect(body.importance).toBeGreaterThanOrEqual(1);
    expect(body.importance).toBeLessThanOrEqual(10);
    expect(["persistent", "time_bound"]).toContain(body.temporal.type);
    if (body.temporal.type === "persistent") expect(body.temporal.valid_until).toBeNull();
    else expect(body.temporal.valid_until).toMatch(ISO_UTC_SECONDS);
    expect(isValidCategoryList(body.categories)).toBe(true);
    expect(body.dedup).toEqual({ action: "stored_new", existing_id: null });
  });

  it("retrieve returns memories with scores in 0..1 and the caller's meta beside temporal and categories", async () => {
    const ws = await svc.newWorkspace("retrieve-shape");
    const stored = await store(ws.apiKey, {
      text: "The staging database runs PostgreSQL 16 on host db-stage-2.",
      meta: { source: "runbook", temporal: "caller's value loses", tags: ["db"] },
    });
    expect(stored.status, stored.text).toBe(200);
    const res = await retrieve(ws.apiKey, { query: "Which PostgreSQL version does staging run?" });
    expect(res.status, res.text).toBe(200);
    expect(res.json.count).toBe(res.json.memories.length);
    expect(Object.keys(res.json)).toEqual(["memories", "count"]);
    const memory = res.json.memories.find((m: any) => m.id === stored.json.memory_id);
    expect(memory).toBeDefined();
    // The specification's fields (id .. meta) in its order, then the documented extras.
    expect(Object.keys(memory)).toEqual([
      "id",
      "text",
      "score",
      "similarity",
      "importance",
      "meta",
      "expired",
      "created_at",
      "last_accessed_at",
      "access_count",
    ]);
    expect(memory.text).toBe("The staging database runs PostgreSQL 16 on host db-stage-2.");
    for (const field of ["score", "similarity"]) {
      expect(memory[field]).toBeGreaterThanOrEqual(0);
      expect(memory[field]).toBeLessThanOrEqual(1);
    }
    expect(memory.importance).toBe(stored.json.importance);
    expect(memory.expired).toBe(false);
    expect(memory.meta.source).toBe("runbook");
    expect(memory.meta.tags).toEqual(["db"]);
    expect(memory.meta.temporal).toEqual(stored.json.temporal);
    expect(memory.meta.categories).toEqual(stored.json.categories);
    expect(memory.created_at).toMatch(ISO_UTC_SECONDS);
    expect(memory.access_count).toBeGreaterThanOrEqual(1);
  });

  it("retrieve returns at most 5 memories when top_k is not given, and honours top_k", async () => {
    const ws = await svc.newWorkspace("top-k");
    const facts = [
      "Maria prefers tea over coffee in the morning.",
      "The invoice for the Berlin office is due on the 15th.",
      "Our Kubernetes cluster autoscaler caps at 40 nodes.",
      "Tom's daughter starts school in September.",
      "The marketing launch for the Orion product slipped to Q3.",
      "Password rotation for service accounts happens quarterly.",
      "The Lisbon trip needs a hotel near the conference venue.",
    ];
    for (const text of facts) expect((await store(ws.apiKey, { text })).status).toBe(200);
    const byDefault = await retrieve(ws.apiKey, { query: "what do I know" });
    expect(byDefault.status).toBe(200);
    expect(byDefault.json.memories.length).toBeLessThanOrEqual(5);
    const two = await retrieve(ws.apiKey, { query: "what do I know", top_k: 2 });
    expect(two.json.memories.length).toBeLessThanOrEqual(2);
    const strict = await retrieve(ws.apiKey, { query: "what do I know", min_score: 1 });
    expect(strict.status).toBe(200);
    for (const m of strict.json.memories) expect(m.score).toBeGreaterThanOrEqual(1);
  });

  it("health answers 200 with quality_score, signals, recommendations and generated_at", async () => {
    const res = await api("GET", "/v1/optimize/health", { key: svc.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.json.quality_score).toBeGreaterThanOrEqual(0);
    expect(res.json.quality_score).toBeLessThanOrEqual(100);
    expect(Object.keys(res.json.signals).sort()).toEqual(
      [
        "duplicate_memories",
        "never_retrieved_memories",
        "open_recommendations",
        "overlong_memories",
        "stale_memories",
        "total_memories",
      ].sort(),
    );
    expect(Array.isArray(res.json.recommendations)).toBe(true);
    expect(res.json.generated_at).toMatch(ISO_UTC_SECONDS);
  });

  it("status answers 200 with the workspace, the key's 11-character prefix and never the key", async () => {
    const res = await status(svc.apiKey);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      healthy: true,
      workspace_id: svc.workspaceId,
      workspace_name: "primary",
      workspace_status: "active",
      plan_name: "free",
      api_key_id: svc.keyId,
      api_key_prefix: svc.apiKey.slice(0, API_KEY_PUBLIC_PREFIX_CHARS),
    });
    // The specification's nine fields in its order, then the documented extras.
    expect(Object.keys(res.json)).toEqual([
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
    expect(typeof res.json.billing_cycle).toBe("string");
    expect(typeof res.json.version).toBe("string");
    expect(Number.isInteger(res.json.memory_count)).toBe(true);
    expect(res.json.server_time).toMatch(ISO_UTC_SECONDS);
    expect(res.text).not.toContain(svc.apiKey);
  });
});

describe("request ids", () => {
  it("every answer, success or error, carries x-request-id req_<ULID>, and error bodies repeat it", async () => {
    const answers = [
      await status(svc.apiKey),
      await api("GET", "/v1/status"),
      await api("GET", "/v1/events/usage"),
      await api("GET", "/v1/memory/store", { key: svc.apiKey }),
      await store(svc.apiKey, { content: "x" }),
    ];
    const ids = answers.map((res) => res.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(REQUEST_ID_PATTERN);
    expect(new Set(ids).size).toBe(ids.length);
    for (const res of answers.slice(1)) expect(res.json.error.request_id).toBe(res.headers.get("x-request-id"));
  });
});

describe("authentication", () => {
  it("a request without a key is 401 invalid_api_key with WWW-Authenticate: Bearer", async () => {
    const res = await api("GET", "/v1/status");
    expectError(res, 401, "invalid_api_key");
    expect(res.json.error.type).toBe("authentication_error");
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("an unknown key, or a malformed Authorization header, is 401 and the key is not echoed", async () => {
    const wrong = "svc_ws_0000000000000000000000000000abcd";
    const res = await api("GET", "/v1/status", { key: wrong });
    expectError(res, 401, "invalid_api_key");
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(res.text).not.toContain(wrong);
    const basic = await api("GET", "/v1/status", { headers: { authorization: `Basic ${svc.apiKey}` } });
    expectError(basic, 401, "invalid_api_key");
    expect(svc.stderr()).not.toContain(wrong);
  });

  it("a revoked key is 401 on every operation, while the workspace's other keys keep working", async () => {
    const ws = await svc.newWorkspace("revoke");
    const second = await svc.adminJson(["key", "create", ws.workspaceId]);
    expect((await status(ws.apiKey)).status).toBe(200);
    await svc.adminJson(["key", "revoke", ws.keyId]);
    for (const res of [
      await status(ws.apiKey),
      await api("GET", "/v1/optimize/health", { key: ws.apiKey }),
      await retrieve(ws.apiKey, { query: "anything" }),
      await store(ws.apiKey, { text: "A fact that must not be stored." }),
    ]) {
      expectError(res, 401, "invalid_api_key");
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
    }
    expect((await status(String(second.api_key))).status).toBe(200);
  });

  it("a key with an older prefix, imported by admin (from stdin or as an argument), authenticates", async () => {
    const ws = await svc.newWorkspace("imported");
    const older = "sk_live_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
    const imported = await svc.adminJson(["key", "import", ws.workspaceId, "-"], { input: `${older}\n` });
    expect(imported.workspace_id).toBe(ws.workspaceId);
    const res = await status(older);
    expect(res.status, res.text).toBe(200);
    expect(res.json.workspace_id).toBe(ws.workspaceId);
    expect(res.json.api_key_prefix).toBe(older.slice(0, API_KEY_PUBLIC_PREFIX_CHARS));

    const asArgument = "brain_" + "Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2c";
    await svc.adminJson(["key", "import", ws.workspaceId, asArgument]);
    expect((await store(asArgument, { text: "Imported keys can write memories too." })).status).toBe(200);
  });
});

describe("workspace states", () => {
  it("a suspended workspace gets 403 workspace_suspended on store, retrieve and health; status is 200 and says suspended", async () => {
    const ws = await svc.newWorkspace("suspended");
    await svc.adminJson(["workspace", "set-status", ws.workspaceId, "suspended"]);
    expectError(await store(ws.apiKey, { text: "Suspended workspaces do not store." }), 403, "workspace_suspended");
    expectError(await retrieve(ws.apiKey, { query: "anything" }), 403, "workspace_suspended");
    const health = expectError(await api("GET", "/v1/optimize/health", { key: ws.apiKey }), 403, "workspace_suspended");
    expect(health.type).toBe("permission_error");
    const res = await status(ws.apiKey);
    expect(res.status).toBe(200);
    expect(res.json.workspace_status).toBe("suspended");
  });

  it("a deleted workspace gets 403 workspace_deleted on store, retrieve and health; status is 200 and says deleted", async () => {
    const ws = await svc.newWorkspace("deleted");
    await svc.adminJson(["workspace", "set-status", ws.workspaceId, "deleted"]);
    expectError(await store(ws.apiKey, { text: "Deleted workspaces do not store." }), 403, "workspace_deleted");
    expectError(await retrieve(ws.apiKey, { query: "anything" }), 403, "workspace_deleted");
    expectError(await api("GET", "/v1/optimize/health", { key: ws.apiKey }), 403, "workspace_deleted");
    const res = await status(ws.apiKey);
    expect(res.status).toBe(200);
    expect(res.json.workspace_status).toBe("deleted");
  });

  it("a workspace at its limit gets 403 workspace_limit_reached on store only; retrieve, health and status work", async () => {
    const ws = await svc.newWorkspace("limited");
    expect((await store(ws.apiKey, { text: "The office wifi password changes every month." })).status).toBe(200);
    await svc.adminJson(["workspace", "set-status", ws.workspaceId, "limit_reached"]);
    expectError(await store(ws.apiKey, { text: "One more fact over the limit." }), 403, "workspace_limit_reached");
    expect((await retrieve(ws.apiKey, { query: "wifi" })).status).toBe(200);
    expect((await api("GET", "/v1/optimize/health", { key: ws.apiKey })).status).toBe(200);
    const res = await status(ws.apiKey);
    expect(res.status).toBe(200);
    expect(res.json.workspace_status).toBe("limit_reached");
    expect(res.json.memory_count).toBe(1);

    await svc.adminJson(["workspace", "set-status", ws.workspaceId, "active"]);
    expect((await store(ws.apiKey, { text: "Writing works again once the workspace is active." })).status).toBe(200);
  });
});

describe("validation", () => {
  it("`content` instead of `text` is 422 with a message pointing at `text`", async () => {
    const error = expectError(await store(svc.apiKey, { content: "I like green tea." }), 422, "invalid_request");
    expect(error.param).toBe("text");
    expect(error.message).toContain("`text`");
    expect(error.message).not.toContain("green tea");
  });

  it("unknown fields are 422 and name the field", async () => {
    const error = expectError(await store(svc.apiKey, { text: "A fact.", importance: 9 }), 422, "invalid_request");
    expect(error.param).toBe("importance");
    expect(error.message).toContain("importance");
    const onRetrieve = expectError(await retrieve(svc.apiKey, { query: "x", limit: 3 }), 422, "invalid_request");
    expect(onRetrieve.param).toBe("limit");
  });

  it("a missing or mistyped field is 422 invalid_request naming the field", async () => {
    const cases: [unknown, string][] = [
      [{}, "text"],
      [{ text: 42 }, "text"],
      [{ text: "ok", meta: ["not", "an", "object"] }, "meta"],
      [{ text: "ok", meta: "a string" }, "meta"],
    ];
    for (const [body, param] of cases) {
      const error = expectError(await store(svc.apiKey, body), 422, "invalid_request");
      expect(error.param).toBe(param);
      expect(error.message).toContain(param);
    }
  });

  it("a body that is not a JSON object, or not JSON, is 422", async () => {
    expectError(await store(svc.apiKey, ["text"]), 422, "invalid_request");
    const broken = await api("POST", "/v1/memory/store", {
      key: svc.apiKey,
      body: '{"text": "unterminated',
      headers: { "content-type": "application/json" },
    });
    const error = expectError(broken, 422, "invalid_request");
    expect(error.message).not.toContain("unterminated");
  });

  it("text that is empty after trimming is 422 invalid_request; text over 8,000 characters is 422 text_too_long", async () => {
    expect(expectError(await store(svc.apiKey, { text: "   \n\t " }), 422, "invalid_request").param).toBe("text");
    const long = "Alpine meadow notes. ".repeat(400).slice(0, TEXT_MAX_CHARS) + "!";
    const error = expectError(await store(svc.apiKey, { text: long }), 422, "text_too_long");
    expect(error.param).toBe("text");
    expect(error.message).not.toContain("Alpine meadow");
  });

  it("text of exactly 8,000 characters after trimming is accepted", async () => {
    const ws = await svc.newWorkspace("long-text");
    const words = "The quarterly planning notes describe river cleanup volunteers and garden schedules. ";
    const text = words.repeat(Math.ceil(TEXT_MAX_CHARS / words.length)).slice(0, TEXT_MAX_CHARS - 1) + "!";
    expect(text.length).toBe(TEXT_MAX_CHARS);
    const res = await store(ws.apiKey, { text: `   ${text}   ` });
    expect(res.status, res.text).toBe(200);
  });

  it("meta over 4 KiB serialized is 422 naming meta", async () => {
    const error = expectError(
      await store(svc.apiKey, { text: "A fact with big meta.", meta: { blob: "x".repeat(5000) } }),
      422,
      "invalid_request",
    );
    expect(error.param).toBe("meta");
  });

  it("retrieve checks query (1..2,000), top_k (integer 1..50) and min_score (0..1)", async () => {
    const cases: [unknown, string][] = [
      [{}, "query"],
      [{ query: "" }, "query"],
      [{ query: "q".repeat(2001) }, "query"],
      [{ query: "ok", top_k: 0 }, "top_k"],
      [{ query: "ok", top_k: 51 }, "top_k"],
      [{ query: "ok", top_k: 2.5 }, "top_k"],
      [{ query: "ok", top_k: "5" }, "top_k"],
      [{ query: "ok", min_score: -0.1 }, "min_score"],
      [{ query: "ok", min_score: 1.5 }, "min_score"],
      [{ query: "ok", min_score: "high" }, "min_score"],
    ];
    for (const [body, param] of cases) {
      const error = expectError(await retrieve(svc.apiKey, body), 422, "invalid_request");
      expect(error.param, JSON.stringify(body)).toBe(param);
    }
    expect((await retrieve(svc.apiKey, { query: "q".repeat(2000), top_k: 50, min_score: 0 })).status).toBe(200);
  });

  it("a POST body that is not application/json is 415", async () => {
    for (const headers of [{ "content-type": "text/plain" }, { "content-type": "application/x-www-form-urlencoded" }, {}] as Record<
      string,
      string
    >[]) {
      const res = await api("POST", "/v1/memory/store", { key: svc.apiKey, body: '{"text":"hello"}', headers });
      const error = expectError(res, 415, "unsupported_media_type");
      expect(error.type).toBe("invalid_request_error");
    }
    const withCharset = await api("POST", "/v1/memory/retrieve", {
      key: svc.apiKey,
      body: '{"query":"hello"}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(withCharset.status).toBe(200);
  });

  it("a body over 64 KiB is 413, whether declared by Content-Length or streamed without one", async () => {
    const big = JSON.stringify({ text: "y".repeat(70 * 1024) });
    expectError(
      await api("POST", "/v1/memory/store", { key: svc.apiKey, body: big, headers: { "content-type": "application/json" } }),
      413,
      "payload_too_large",
    );

    const chunk = new TextEncoder().encode("z".repeat(8 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"text":"'));
        if (sent >= 10) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${svc.baseURL}/v1/memory/store`, {
      method: "POST",
      headers: { authorization: `Bearer ${svc.apiKey}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  it("a body is read alike with a Content-Length (read whole) and streamed without one (read within the budget)", async () => {
    const text = "Streamed bodies and declared ones are read alike.";
    const declared = await store(svc.apiKey, { text });
    expect(declared.status).toBe(200);
    const parts = ['{"text":', JSON.stringify(text), ', "meta": {"via": "chunks"}}'].map((p) => new TextEncoder().encode(p));
    const streamed = await fetch(`${svc.baseURL}/v1/memory/retrieve`, {
      method: "POST",
      headers: { authorization: `Bearer ${svc.apiKey}`, "content-type": "application/json" },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = parts.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    // a retrieve's body has no `text`: the streamed body was read and parsed, then validated (422), not cut or lost
    expect(streamed.status).toBe(422);
    const asked = await fetch(`${svc.baseURL}/v1/memory/retrieve`, {
      method: "POST",
      headers: { authorization: `Bearer ${svc.apiKey}`, "content-type": "application/json" },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"query": "How are streamed bodies '));
          controller.enqueue(new TextEncoder().encode('read?", "top_k": 3, "min_score": 0}'));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(asked.status).toBe(200);
    expect(((await asked.json()) as { memories: { id: number }[] }).memories.map((m) => m.id)).toContain(
      (declared.json as { memory_id: number }).memory_id,
    );
  });

  it("an Idempotency-Key header over 255 characters is 422", async () => {
    const error = expectError(
      await store(svc.apiKey, { text: "Idempotency keys have a length limit." }, { "idempotency-key": "k".repeat(256) }),
      422,
      "invalid_request",
    );
    expect(error.param).toBe("Idempotency-Key");
  });
});

describe("PII", () => {
  it("a store with a credit card number is rejected with pii_types, and the number is never echoed, logged or written", async () => {
    const ws = await svc.newWorkspace("pii");
    const card = "4111 1111 1111 1111";
    const secretText = `Pay the supplier with card ${card} before Friday`;
    const res = await store(ws.apiKey, { text: secretText });
    const error = expectError(res, 422, "pii_detected");
    expect(error.pii_types).toContain("credit_card");
    expectNoCardNumber(res.text);
    expect(res.text).not.toContain("supplier");
    expect((await status(ws.apiKey)).json.memory_count).toBe(0);
    expect((await usageCounts(svc, ws.workspaceId)).write).toBe(0);
    // Give the access log a moment to reach the pipe, then look for the text anywhere it could have gone.
    await new Promise((r) => setTimeout(r, 100));
    expect(svc.stderr()).toContain(res.headers.get("x-request-id")!);
    expectNoCardNumber(svc.stderr());
    expect(svc.stderr()).not.toContain("supplier");
    expectNoCardNumber(svc.stdout());
    if (!TEST_DATABASE_URL) {
      for (const file of [svc.dbPath!, `${svc.dbPath}-wal`]) {
        if (!existsSync(file)) continue;
        const bytes = readFileSync(file);
        expect(bytes.includes(Buffer.from(card)), file).toBe(false);
        expect(bytes.includes(Buffer.from("Pay the supplier")), file).toBe(false);
      }
    }
  });
});

describe("idempotency", () => {
  it("a repeated store with the same Idempotency-Key returns the first answer, keeps one memory and bills one write", async () => {
    const ws = await svc.newWorkspace("idempotent");
    const body = { text: "The quarterly review with Acme is on the first Monday of March.", meta: { via: "test" } };
    const first = await store(ws.apiKey, body, { "idempotency-key": "retry-1" });
    expect(first.status, first.text).toBe(200);
    const second = await store(ws.apiKey, body, { "idempotency-key": "retry-1" });
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect((await status(ws.apiKey)).json.memory_count).toBe(1);
    expect((await usageCounts(svc, ws.workspaceId)).write).toBe(1);
  });

  it("the same Idempotency-Key with a different body is 422 idempotency_key_reused", async () => {
    const ws = await svc.newWorkspace("idempotent-reuse");
    expect((await store(ws.apiKey, { text: "The boiler was serviced in October." }, { "idempotency-key": "k-2" })).status).toBe(200);
    expectError(
      await store(ws.apiKey, { text: "The roof was repaired in June." }, { "idempotency-key": "k-2" }),
      422,
      "idempotency_key_reused",
    );
    expect((await status(ws.apiKey)).json.memory_count).toBe(1);
  });

  it("idempotency keys are per workspace", async () => {
    const a = await svc.newWorkspace("idem-a");
    const b = await svc.newWorkspace("idem-b");
    expect((await store(a.apiKey, { text: "Workspace A's fact about sailing." }, { "idempotency-key": "shared" })).status).toBe(200);
    const other = await store(b.apiKey, { text: "Workspace B's fact about climbing." }, { "idempotency-key": "shared" });
    expect(other.status, other.text).toBe(200);
    expect((await status(b.apiKey)).json.memory_count).toBe(1);
  });
});

describe("usage events", () => {
  it("store records a write, retrieve a read, status and health nothing", async () => {
    const ws = await svc.newWorkspace("usage");
    expect((await store(ws.apiKey, { text: "Usage events are counted per workspace." })).status).toBe(200);
    expect((await retrieve(ws.apiKey, { query: "usage events" })).status).toBe(200);
    expect((await status(ws.apiKey)).status).toBe(200);
    expect((await api("GET", "/v1/optimize/health", { key: ws.apiKey })).status).toBe(200);
    expect(await usageCounts(svc, ws.workspaceId)).toEqual({ write: 1, read: 1 });
  });
});

describe("isolation", () => {
  it("one workspace never sees another's memories", async () => {
    const a = await svc.newWorkspace("iso-a");
    const b = await svc.newWorkspace("iso-b");
    const text = "The launch code name for project Heron is Bluefin.";
    expect((await store(a.apiKey, { text })).status).toBe(200);
    const fromB = await retrieve(b.apiKey, { query: "launch code name for project Heron" });
    expect(fromB.status).toBe(200);
    expect(fromB.json.memories.map((m: any) => m.text)).not.toContain(text);
    expect((await status(b.apiKey)).json.memory_count).toBe(0);
    const fromA = await retrieve(a.apiKey, { query: "launch code name for project Heron" });
    expect(fromA.json.memories.map((m: any) => m.text)).toContain(text);
  });
});

describe("routes", () => {
  it("/v1/events/*, reasoning endpoints and anything else answer 404 not_found, with or without a key", async () => {
    for (const [method, path] of [
      ["GET", "/v1/events/"],
      ["POST", "/v1/events/usage"],
      ["POST", "/v1/reasoning"],
      ["POST", "/v1/memory/reason"],
      ["GET", "/"],
      ["GET", "/v1/status/"],
      ["DELETE", "/v1/memory/mem_1"],
    ]) {
      for (const key of [undefined, svc.apiKey]) {
        const error = expectError(await api(method!, path!, { key }), 404, "not_found");
        expect(error.type).toBe("not_found_error");
      }
    }
  });

  it("a wrong method on a documented path is 405 method_not_allowed with an Allow header", async () => {
    const getStore = await api("GET", "/v1/memory/store", { key: svc.apiKey });
    expectError(getStore, 405, "method_not_allowed");
    expect(getStore.headers.get("allow")).toBe("POST");
    const postStatus = await api("POST", "/v1/status", { key: svc.apiKey, json: {} });
    expectError(postStatus, 405, "method_not_allowed");
    expect(postStatus.headers.get("allow")).toContain("GET");
  });
});

describe("access log", () => {
  it("logs one JSON line per request with id, route, status, duration and workspace, never the key or the query", async () => {
    const query = "zebra crossing near the old bakery";
    const res = await retrieve(svc.apiKey, { query });
    const requestId = res.headers.get("x-request-id")!;
    await new Promise((r) => setTimeout(r, 100));
    const line = svc
      .stderr()
      .split("\n")
      .filter((l) => l.includes(requestId) && l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l))[0];
    expect(line).toMatchObject({
      level: "info",
      request_id: requestId,
      method: "POST",
      route: "retrieve",
      status: 200,
      workspace_id: svc.workspaceId,
    });
    expect(typeof line.duration_ms).toBe("number");
    expect(line.time).toMatch(/Z$/);
    expect(svc.stderr()).not.toContain(query);
    expect(svc.stderr()).not.toContain(svc.apiKey);
    expect(svc.stderr()).not.toContain(svc.apiKey.slice(11));
  });
});
