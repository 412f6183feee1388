// After a restart `serve` loads the vector indexes of the most recently written workspaces while it already answers,
// so the first recall does not wait for them; BRAIN_WARM_WORKSPACES=0 turns that off.
import { afterAll, expect, it, vi } from "vitest";
import { call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const running: ServiceHandle[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

const env = { BRAIN_EMBEDDER: "lexical" };
const loadedLines = (s: ServiceHandle) =>
  s
    .stderr()
    .split("\n")
    .filter((line) => line.includes('"vector index loaded"'))
    .map((line) => JSON.parse(line) as { workspace: number; memories: number; ms: number });

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("a restarted serve loads the recently written workspaces' indexes, and recalls answer from them", async () => {
  const first = await startService({ env });
  running.push(first);
  const second = await first.newWorkspace("second");
  for (const text of ["The deploy pipeline runs on GitHub Actions.", "Staging lives in eu-west-1.", "Dana reviews database changes."]) {
    expect((await call(first.baseURL, "POST", "/v1/memory/store", { key: first.apiKey, json: { text } })).status).toBe(200);
  }
  const stored = await call(first.baseURL, "POST", "/v1/memory/store", { key: second.apiKey, json: { text: "Standup is at 9:30." } });
  expect(stored.status).toBe(200);
  await first.stop();

  const restarted = await startService({ env: { ...env, BRAIN_WARM_WORKSPACES: "1000" }, dbPath: first.dbPath, noWorkspace: true });
  running.push(restarted);
  const wanted = new Map([
    [first.workspaceId, 3],
    [second.workspaceId, 1],
  ]);
  await until(() => [...wanted.keys()].every((id) => loadedLines(restarted).some((l) => l.workspace === id)));
  const loaded = loadedLines(restarted).filter((l) => wanted.has(l.workspace));
  expect(loaded.map((l) => [l.workspace, l.memories])).toEqual(
    // the most recently written first
    [
      [second.workspaceId, 1],
      [first.workspaceId, 3],
    ],
  );
  const recalled = await call(restarted.baseURL, "POST", "/v1/memory/retrieve", {
    key: first.apiKey,
    json: { query: "where does staging live?" },
  });
  expect(recalled.status).toBe(200);
  expect(recalled.json.memories[0].text).toBe("Staging lives in eu-west-1.");
});

it("BRAIN_WARM_WORKSPACES=0 loads no index at start; the first recall loads its own", async () => {
  const service = await startService({ env: { ...env, BRAIN_WARM_WORKSPACES: "0" } });
  running.push(service);
  expect(
    (
      await call(service.baseURL, "POST", "/v1/memory/store", {
        key: service.apiKey,
        json: { text: "The office plants need water on Fridays." },
      })
    ).status,
  ).toBe(200);
  await service.stop();
  const restarted = await startService({ env: { ...env, BRAIN_WARM_WORKSPACES: "0" }, dbPath: service.dbPath, noWorkspace: true });
  running.push(restarted);
  const recalled = await call(restarted.baseURL, "POST", "/v1/memory/retrieve", {
    key: service.apiKey,
    json: { query: "when do the plants get water?" },
  });
  expect(recalled.status).toBe(200);
  expect(recalled.json.count).toBe(1);
  expect(loadedLines(restarted)).toEqual([]);
});
