// Upgrade from 0.3.0 (issue 18): a store written by 0.3.0, with the hybrid vectors of that version's default and no
// lexical index, gains the index when opened (every memory searchable by its words at once) and has its vectors
// rewritten to the new default in place, in the background, with no model run; no memory drops out of recall meanwhile.
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { ROOT, call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FIXTURE = join(ROOT, "test", "fixtures", "store-0.3.0");
const fixture = JSON.parse(readFileSync(join(FIXTURE, "store.json"), "utf8")) as {
  api_key: string;
  memories: { text: string; question: string; word: string }[];
};
const running: ServiceHandle[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

function copyOfFixture(): string {
  const db = join(mkdtempSync(join(tmpdir(), "brain-upgrade-030-")), "store.db");
  copyFileSync(join(FIXTURE, "store.db"), db);
  return db;
}

async function recall(service: ServiceHandle, query: string): Promise<string[]> {
  const res = await call(service.baseURL, "POST", "/v1/memory/retrieve", { key: fixture.api_key, json: { query, top_k: 3 } });
  expect(res.status).toBe(200);
  return res.json.memories.map((m: { text: string }) => m.text);
}

async function recallsEveryMemory(service: ServiceHandle): Promise<void> {
  for (const { text, question, word } of fixture.memories) {
    expect(await recall(service, question), question).toContain(text);
    expect((await recall(service, `What do we know about ${word}?`))[0], word).toBe(text);
  }
}

it.skipIf(process.env.BRAIN_TEST_DATABASE_URL)(
  "serve rewrites a 0.3.0 store's vectors in the background, and every memory is recalled by meaning and by its words",
  async () => {
    const service = await startService({ dbPath: copyOfFixture(), noWorkspace: true });
    running.push(service);
    const deadline = Date.now() + 60_000;
    while (!service.stderr().includes("rewriting done") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(service.stderr()).toContain("rewriting, in the background");
    expect(service.stderr()).toMatch(/rewriting done.*"rewritten":6/);
    const health = await call(service.baseURL, "GET", "/v1/optimize/health", { key: fixture.api_key });
    expect(health.json.signals.total_memories).toBe(6);
    expect(health.json.recommendations.map((r: { code: string }) => r.code)).not.toContain("memories_need_reembedding");
    await recallsEveryMemory(service);
  },
);

it.skipIf(process.env.BRAIN_TEST_DATABASE_URL)(
  "before its vectors are rewritten, a 0.3.0 store's memories are recalled all the same",
  async () => {
    const service = await startService({ dbPath: copyOfFixture(), noWorkspace: true, env: { BRAIN_REEMBED_AT_START: "0" } });
    running.push(service);
    await recallsEveryMemory(service);
    expect(service.stderr()).not.toContain("rewriting");
  },
);
