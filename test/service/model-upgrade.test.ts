// Upgrade path of the default model (issue 11): a store written by 0.2.0, whose vectors came from USE-lite, is
// re-embedded by the current model, by `serve` in the background at start or by `admin reembed`, so that no memory
// drops out of recall.
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { ROOT, baseEnv, call, runCli, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FIXTURE = join(ROOT, "test", "fixtures", "store-use-lite");
const fixture = JSON.parse(readFileSync(join(FIXTURE, "store.json"), "utf8")) as {
  api_key: string;
  memories: { text: string; question: string }[];
};
const running: ServiceHandle[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

function copyOfFixture(): string {
  const db = join(mkdtempSync(join(tmpdir(), "brain-upgrade-")), "store.db");
  copyFileSync(join(FIXTURE, "store.db"), db);
  return db;
}

// Every candidate (min_score 0): this is about the vectors being rewritten, not about the default threshold.
async function recallsEveryMemory(service: ServiceHandle): Promise<void> {
  for (const { text, question } of fixture.memories) {
    const res = await call(service.baseURL, "POST", "/v1/memory/retrieve", {
      key: fixture.api_key,
      json: { query: question, top_k: 3, min_score: 0 },
    });
    expect(res.status).toBe(200);
    expect(
      res.json.memories.map((m: { text: string }) => m.text),
      question,
    ).toContain(text);
  }
}

it.skipIf(process.env.BRAIN_TEST_DATABASE_URL)(
  "serve re-embeds a 0.2.0 store in the background at start, and every memory is recalled again",
  async () => {
    const service = await startService({ dbPath: copyOfFixture(), noWorkspace: true });
    running.push(service);
    const deadline = Date.now() + 60_000;
    while (!service.stderr().includes("re-embedding done") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(service.stderr()).toContain("re-embedding, in the background");
    expect(service.stderr()).toMatch(/re-embedding done.*"reembedded":6/);
    const health = await call(service.baseURL, "GET", "/v1/optimize/health", { key: fixture.api_key });
    expect(health.json.signals.total_memories).toBe(6);
    expect(health.json.recommendations.map((r: { code: string }) => r.code)).not.toContain("memories_need_reembedding");
    await recallsEveryMemory(service);
  },
);

it.skipIf(process.env.BRAIN_TEST_DATABASE_URL)(
  "admin reembed on a 0.2.0 store shows its progress, then has nothing left to do",
  async () => {
    const db = copyOfFixture();
    const env = baseEnv();
    const first = await runCli(["admin", "reembed", "--db", db, "--json"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ reembedded: 6 });
    expect(first.stderr).toContain("re-embedded 6 memories so far");
    const again = await runCli(["admin", "reembed", "--db", db, "--json"], { env });
    expect(JSON.parse(again.stdout)).toEqual({ reembedded: 0 });
    const service = await startService({ dbPath: db, noWorkspace: true });
    running.push(service);
    await recallsEveryMemory(service);
    expect(service.stderr()).not.toContain("re-embedding");
  },
);
