// One input policy for every store (DESIGN.md "text content"; README "Input policy"): text, query and meta are valid
// Unicode without control characters but tab, newline and carriage return; meta is bounded in depth and keys. A
// rejected request is 422 invalid_request naming the field and writes nothing. This file runs on SQLite and, in the
// service suite on PostgreSQL, on PostgreSQL (where a NUL once answered 500).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { META_MAX_DEPTH, META_MAX_KEYS } from "../../src/contract/limits.js";
import { call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let svc: ServiceHandle;
const post = (path: string, json: unknown) => call(svc.baseURL, "POST", path, { key: svc.apiKey, json });
const totalMemories = async () => (await call(svc.baseURL, "GET", "/v1/optimize/health", { key: svc.apiKey })).json.signals.total_memories;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: "x" };
  for (let i = 1; i < depth; i++) value = { level: value };
  return value;
}

const REJECTED: [string, string, Record<string, unknown>, string][] = [
  ["a NUL in text", "/v1/memory/store", { text: "The build key is \u0000 hidden." }, "text"],
  ["a lone surrogate in text", "/v1/memory/store", { text: "Half a pair \ud800 here." }, "text"],
  ["a bell character in text", "/v1/memory/store", { text: "Ring \u0007 the bell." }, "text"],
  ["DEL in text", "/v1/memory/store", { text: "Delete \u007f this." }, "text"],
  ["a NUL in query", "/v1/memory/retrieve", { query: "deploy\u0000day" }, "query"],
  ["a lone low surrogate in query", "/v1/memory/retrieve", { query: "deploy \udc00" }, "query"],
  ["a NUL in a meta key", "/v1/memory/store", { text: "A fact.", meta: { "so\u0000urce": "chat" } }, "meta"],
  ["a surrogate in a nested meta value", "/v1/memory/store", { text: "A fact.", meta: { a: { b: ["ok", "bad\ud83d"] } } }, "meta"],
  [`meta nested deeper than ${META_MAX_DEPTH}`, "/v1/memory/store", { text: "A fact.", meta: nested(META_MAX_DEPTH + 1) }, "meta"],
  [
    `meta with more than ${META_MAX_KEYS} keys`,
    "/v1/memory/store",
    { text: "A fact.", meta: Object.fromEntries(Array.from({ length: META_MAX_KEYS + 1 }, (_, i) => [`k${i}`, i])) },
    "meta",
  ],
];

describe("rejected input", () => {
  it.each(REJECTED)("%s is 422 invalid_request naming the field, and nothing is written", async (_name, path, body, field) => {
    const before = await totalMemories();
    const res = await post(path, body);
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.code).toBe("invalid_request");
    expect(res.json.error.param).toBe(field);
    expect(res.json.error.message).toContain(`\`${field}\``);
    expect(await totalMemories()).toBe(before);
  });
});

describe("a `__proto__` key in meta", () => {
  // Raw JSON: in a JavaScript object literal `__proto__` would set the prototype instead of making a key.
  it.each([
    ["at the top of meta", '{"text":"The office plants need water.","meta":{"__proto__":{"admin":true},"source":"chat"}}'],
    ["nested in meta", '{"text":"The office plants need water.","meta":{"source":{"__proto__":"x"}}}'],
  ])("%s is refused with 422 naming it, never silently dropped, and nothing is written", async (_where, raw) => {
    const before = await totalMemories();
    const res = await fetch(`${svc.baseURL}/v1/memory/store`, {
      method: "POST",
      headers: { authorization: `Bearer ${svc.apiKey}`, "content-type": "application/json" },
      body: raw,
    });
    const body = await res.json();
    expect(res.status).toBe(422);
    expect(body.error).toMatchObject({ code: "invalid_request", param: "meta" });
    expect(body.error.message).toContain("`__proto__`");
    expect(await totalMemories()).toBe(before);
  });
});

describe("accepted input", () => {
  it("tab, newline, carriage return, emoji and other scripts are stored and come back byte for byte", async () => {
    const text = "Deploy checklist for Zoë 🚀:\r\n\t1. run the tests\n\t2. tag the release (東京 team signs off)";
    const meta = { note: "line one\nline two\ttabbed", emoji: "✅", ...nested(META_MAX_DEPTH - 1) };
    const stored = await post("/v1/memory/store", { text, meta });
    expect(stored.status, stored.text).toBe(200);
    const found = await post("/v1/memory/retrieve", { query: "deploy checklist release tag", top_k: 50 });
    const memory = found.json.memories.find((m: { id: number }) => m.id === stored.json.memory_id);
    expect(memory?.text).toBe(text);
    expect(memory?.meta).toMatchObject(meta);
  });
});
