// The running service's real answers, success and every error we can cause, checked against the OpenAPI 3.1
// document (src/contract/openapi.json). Runs on SQLite here and on PostgreSQL in the service suite.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  BODY_MAX_BYTES,
  BODY_MAX_DEPTH,
  IDEMPOTENCY_KEY_MAX_CHARS,
  META_MAX_BYTES,
  MIN_SCORE_MAX,
  MIN_SCORE_MIN,
  QUERY_MAX_CHARS,
  QUERY_MIN_CHARS,
  TEXT_MAX_CHARS,
  TEXT_MIN_CHARS,
  TOP_K_DEFAULT,
  TOP_K_MAX,
  TOP_K_MIN,
} from "../../src/contract/limits.js";
import { ROUTES } from "../../src/contract/wire.js";
import { conformanceProblems, OPENAPI } from "../support/openapi.js";
import { call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let svc: ServiceHandle;
let limited: ServiceHandle;
const seen = new Map<string, Set<number>>();

async function checked(
  handle: ServiceHandle,
  method: string,
  path: string,
  opts: Parameters<typeof call>[3] = {},
  expectedStatus?: number,
) {
  const res = await call(handle.baseURL, method, path, opts);
  if (expectedStatus !== undefined) expect(res.status, res.text).toBe(expectedStatus);
  expect(conformanceProblems(method, path, res), `${method} ${path} ${res.status}: ${res.text}`).toEqual([]);
  const key = `${method} ${path}`;
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)!.add(res.status);
  return res;
}

beforeAll(async () => {
  [svc, limited] = await Promise.all([
    startService(),
    startService({ env: { BRAIN_RATE_LIMIT_RPS: "0.01", BRAIN_RATE_LIMIT_BURST: "2" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([svc?.stop(), limited?.stop()]);
});

describe("the document", () => {
  it("names exactly the four public operations", () => {
    const operations = Object.entries<any>(OPENAPI.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      Object.values(ROUTES)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    );
  });

  it("states the service's own limits (src/contract/limits.ts)", () => {
    const s = OPENAPI.components.schemas;
    expect(s.StoreRequest.properties.text).toMatchObject({ minLength: TEXT_MIN_CHARS, maxLength: TEXT_MAX_CHARS });
    expect(s.StoreRequest.properties.meta.description).toContain(`${META_MAX_BYTES / 1024} KiB`);
    expect(s.RetrieveRequest.properties.query).toMatchObject({ minLength: QUERY_MIN_CHARS, maxLength: QUERY_MAX_CHARS });
    expect(s.RetrieveRequest.properties.top_k).toMatchObject({ minimum: TOP_K_MIN, maximum: TOP_K_MAX, default: TOP_K_DEFAULT });
    expect(s.RetrieveRequest.properties.min_score).toMatchObject({ minimum: MIN_SCORE_MIN, maximum: MIN_SCORE_MAX });
    expect(OPENAPI.paths[ROUTES.store.path].post.parameters[0].schema.maxLength).toBe(IDEMPOTENCY_KEY_MAX_CHARS);
    expect(OPENAPI.components.responses.PayloadTooLarge.description).toContain(`${BODY_MAX_BYTES / 1024} KiB`);
    expect(OPENAPI.components.responses.Unprocessable.description).toContain(`nested more than ${BODY_MAX_DEPTH} levels`);
  });

  it("requires exactly the specification's fields of each answer", () => {
    const s = OPENAPI.components.schemas;
    expect(s.StoreResponse.required).toEqual(["status", "memory_id", "workspace_id", "dedup", "importance", "categories", "temporal"]);
    expect(s.RetrievedMemory.required).toEqual(["id", "text", "score", "similarity", "importance", "meta"]);
    expect(s.RetrieveResponse.required).toEqual(["memories"]);
    expect(s.HealthResponse.required).toEqual(["quality_score", "signals"]);
    expect(s.HealthResponse.properties.signals.required).toEqual(["total_memories"]);
    expect(s.StatusResponse.required).toEqual([
      "workspace_id",
      "workspace_name",
      "workspace_status",
      "plan_name",
      "billing_cycle",
      "api_key_id",
      "api_key_prefix",
      "healthy",
      "server_time",
    ]);
  });
});

describe("real answers conform", () => {
  it("successes of all four operations, a merge and an idempotent replay", async () => {
    const key = svc.apiKey;
    await checked(
      svc,
      "POST",
      ROUTES.store.path,
      { key, json: { text: "The staging deploy runs every Friday at 4pm.", meta: { source: "chat" } } },
      200,
    );
    await checked(svc, "POST", ROUTES.store.path, { key, json: { text: "The staging deploy runs every Friday at 4 pm." } }, 200);
    const headers = { "idempotency-key": "conformance-1" };
    await checked(svc, "POST", ROUTES.store.path, { key, headers, json: { text: "The launch review is next Tuesday at 10am." } }, 200);
    await checked(svc, "POST", ROUTES.store.path, { key, headers, json: { text: "The launch review is next Tuesday at 10am." } }, 200);
    const found = await checked(svc, "POST", ROUTES.retrieve.path, { key, json: { query: "when does staging deploy?", top_k: 3 } }, 200);
    expect(found.json.memories.length).toBeGreaterThan(0);
    await checked(svc, "POST", ROUTES.retrieve.path, { key, json: { query: "sourdough bread recipe", min_score: 0.99 } }, 200);
    await checked(svc, "GET", ROUTES.health.path, { key }, 200);
    await checked(svc, "GET", ROUTES.status.path, { key }, 200);
  });

  it("401 on every operation without a key or with a wrong one", async () => {
    for (const r of Object.values(ROUTES)) {
      const json = r.method === "POST" ? { text: "x", query: "x" } : undefined;
      await checked(svc, r.method, r.path, { json }, 401);
      await checked(svc, r.method, r.path, { key: "svc_ws_" + "0".repeat(32), json }, 401);
    }
  });

  it("422 for each kind of bad body, 413 for a large one, 415 for one that is not JSON", async () => {
    const key = svc.apiKey;
    for (const json of [
      { content: "x" },
      { text: "" },
      { text: 5 },
      { text: "x", extra: 1 },
      { text: "a".repeat(TEXT_MAX_CHARS + 1) },
      { text: "bad\u0000" },
      [1],
    ]) {
      await checked(svc, "POST", ROUTES.store.path, { key, json }, 422);
    }
    await checked(svc, "POST", ROUTES.store.path, { key, json: { text: "My card is 4111 1111 1111 1111, expiring 12/29." } }, 422);
    await checked(
      svc,
      "POST",
      ROUTES.store.path,
      { key, headers: { "idempotency-key": "conformance-1" }, json: { text: "Another body." } },
      422,
    );
    for (const json of [{ query: "" }, { query: "x", top_k: 0 }, { query: "x", top_k: 1.5 }, { query: "x", min_score: 2 }, {}]) {
      await checked(svc, "POST", ROUTES.retrieve.path, { key, json }, 422);
    }
    await checked(svc, "POST", ROUTES.store.path, { key, body: "{not json", headers: { "content-type": "application/json" } }, 422);
    await checked(svc, "POST", ROUTES.store.path, { key, body: "text=x", headers: { "content-type": "text/plain" } }, 415);
    await checked(svc, "POST", ROUTES.retrieve.path, { key, json: { query: "x".repeat(BODY_MAX_BYTES) } }, 413);
  });

  it("403 for suspended, deleted and limited workspaces; status stays 200", async () => {
    const ws = await svc.newWorkspace("conformance-states");
    for (const state of ["suspended", "deleted"]) {
      await svc.adminJson(["workspace", "set-status", ws.workspaceId, state]);
      await checked(svc, "POST", ROUTES.store.path, { key: ws.apiKey, json: { text: "A fact." } }, 403);
      await checked(svc, "POST", ROUTES.retrieve.path, { key: ws.apiKey, json: { query: "fact" } }, 403);
      await checked(svc, "GET", ROUTES.health.path, { key: ws.apiKey }, 403);
      await checked(svc, "GET", ROUTES.status.path, { key: ws.apiKey }, 200);
    }
    await svc.adminJson(["workspace", "set-status", ws.workspaceId, "limit_reached"]);
    await checked(svc, "POST", ROUTES.store.path, { key: ws.apiKey, json: { text: "A fact." } }, 403);
    await checked(svc, "POST", ROUTES.retrieve.path, { key: ws.apiKey, json: { query: "fact" } }, 200);
  });

  it("429 with Retry-After once the key's bucket is empty", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await checked(limited, "GET", ROUTES.status.path, { key: limited.apiKey })).status);
    expect(statuses).toContain(429);
  });

  it("every status the tests caused is one the document lists for that operation", () => {
    const caused = Object.fromEntries([...seen].map(([op, statuses]) => [op, [...statuses].sort()]));
    expect(caused[`POST ${ROUTES.store.path}`]).toEqual([200, 401, 403, 415, 422]);
    expect(caused[`POST ${ROUTES.retrieve.path}`]).toEqual([200, 401, 403, 413, 422]);
    expect(caused[`GET ${ROUTES.status.path}`]).toEqual([200, 401, 429]);
  });
});
