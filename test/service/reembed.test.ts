// After the embedder changes, memories embedded by the old one cannot be recalled until re-embedded: serve says so
// when it starts, health recommends `admin reembed`, and after it recall finds them again. (A retired model's vectors
// are re-embedded by serve itself: test/service/model-upgrade.test.ts.)
import { afterAll, expect, it, vi } from "vitest";
import { call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const running: ServiceHandle[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

it("memories of another embedder are reported by serve and health until admin reembed, then recalled again", async () => {
  const before = await startService({ env: { BRAIN_EMBEDDER: "lexical" } });
  running.push(before);
  for (const text of ["The wiki moved to Notion in March.", "Backups of the orders database run at 02:00 UTC."]) {
    expect((await call(before.baseURL, "POST", "/v1/memory/store", { key: before.apiKey, json: { text } })).status).toBe(200);
  }
  await before.stop();

  // serve re-embeds by itself only the models this version retired: lexical vectors wait for admin reembed
  const env = { BRAIN_EMBEDDER: "semantic" };
  const after = await startService({ env, dbPath: before.dbPath, noWorkspace: true });
  running.push(after);
  const health = () => call(after.baseURL, "GET", "/v1/optimize/health", { key: before.apiKey });
  const recall = () =>
    call(after.baseURL, "POST", "/v1/memory/retrieve", { key: before.apiKey, json: { query: "when do the orders backups run?" } });

  const stale = await health();
  expect(stale.status).toBe(200);
  expect(stale.json.recommendations[0]).toMatchObject({ code: "memories_need_reembedding", count: 2 });
  expect(stale.json.recommendations[0].message).toContain("brain-mcp admin reembed");
  expect((await recall()).json.count).toBe(0);
  const deadline = Date.now() + 20_000;
  while (!after.stderr().includes("embedded by another model") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(after.stderr()).toContain("brain-mcp admin reembed");

  // admin runs with the same embedder settings as serve
  const reembedded = await after.adminJson(["reembed", "--workspace", before.workspaceId]);
  expect(reembedded).toMatchObject({ reembedded: 2 });
  const fixed = await health();
  expect(fixed.json.recommendations.map((r: { code: string }) => r.code)).not.toContain("memories_need_reembedding");
  const found = await recall();
  expect(found.json.memories[0].text).toBe("Backups of the orders database run at 02:00 UTC.");
});
