// Two processes on one SQLite file store the same fact at the same moment: one memory results.
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { childScripts, openTestService, tempDir, workspaceOf } from "./support.js";

const tmp = tempDir();
let children: Awaited<ReturnType<typeof childScripts>>;

beforeAll(async () => {
  children = await childScripts(resolve(import.meta.dirname, "child-store.ts"), tmp.dir);
});

afterAll(() => {
  children.stop();
  tmp.cleanup();
});

const startChild = (dbPath: string, apiKey: string, text: string, times: number) => children.start(dbPath, apiKey, text, String(times));

it("two processes storing the same text at the same moment on one file yield one memory", async () => {
  const dbPath = join(tmp.dir, "shared.db");
  const service = await openTestService(dbPath);
  const { key, auth } = await workspaceOf(service);
  const text = "the payments service deploys every wednesday at ten";
  const a = startChild(dbPath, key.apiKey, text, 5);
  const b = startChild(dbPath, key.apiKey, text, 5);
  expect(await a.nextLine()).toBe("ready");
  expect(await b.nextLine()).toBe("ready");
  a.child.stdin!.write("go\n");
  b.child.stdin!.write("go\n");
  const results = [JSON.parse(await a.nextLine()), JSON.parse(await b.nextLine())].flat() as [string, string][];
  expect(results).toHaveLength(10);
  expect(new Set(results.map(([id]) => id)).size).toBe(1);
  expect(results.filter(([, action]) => action === "stored_new")).toHaveLength(1);
  // The parent process sees the other processes' write at once.
  const got = await service.retrieve(auth, { query: "payments service deploys", top_k: 5, min_score: 0 });
  expect(got.memories.map((m) => m.id)).toEqual([results[0]![0]]);
  expect((await service.status(auth)).memory_count).toBe(1);
  await service.close();
});
