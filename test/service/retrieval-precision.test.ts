// Issue 30 through the real `serve` (the default embedder; SQLite here, PostgreSQL under
// test/postgres/vitest.service.config.ts): a memory whose only link to the question is a word fragment is not
// returned, a whole or inflected word still finds its memory, and a retrieve without min_score applies the default.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let service: ServiceHandle;
const ids: Record<string, string> = {};
const MEMORIES = {
  user: "The user prefers concise answers, in bullet points, without small talk.",
  atlas: "Atlas, the legacy monolith, keeps its data in a Postgres 13 database.",
  production: "The production cluster runs in eu-west-1 with two read replicas.",
  design: "The design system is called Quartz; its components live in the monorepo.",
  paintings: "Caroline: I finished two paintings of the lake last weekend.",
};

beforeAll(async () => {
  service = await startService();
  for (const [name, text] of Object.entries(MEMORIES)) {
    const res = await call(service.baseURL, "POST", "/v1/memory/store", { key: service.apiKey, json: { text } });
    expect(res.status).toBe(200);
    ids[name] = res.json.memory_id;
  }
});
afterAll(async () => {
  await service?.stop();
});

/** The ids a retrieve without min_score returns (what an agent calling brain.recall sends). */
async function recall(query: string): Promise<{ id: string; score: number }[]> {
  const res = await call(service.baseURL, "POST", "/v1/memory/retrieve", { key: service.apiKey, json: { query, top_k: 5 } });
  expect(res.status).toBe(200);
  return res.json.memories;
}

it("a memory whose only link to the question is a word fragment (`use` in `user`) is not returned; the answer is", async () => {
  const got = (await recall("Which database does Atlas use?")).map((m) => m.id);
  expect(got).toContain(ids.atlas);
  expect(got).not.toContain(ids.user);
});

it("`product` inside `production` and `sign` inside `design` bring nothing in", async () => {
  expect((await recall("Which product should I demo to the customer?")).map((m) => m.id)).not.toContain(ids.production);
  expect((await recall("Where do I sign the lease?")).map((m) => m.id)).not.toContain(ids.design);
});

it("an inflected word still finds its memory: `painting` finds `paintings`", async () => {
  const got = await recall("Caroline painting");
  expect(got[0]?.id).toBe(ids.paintings);
});

it("a question unrelated to every memory gets nothing with the default min_score", async () => {
  expect(await recall("How do I pay a parking fine?")).toEqual([]);
});
