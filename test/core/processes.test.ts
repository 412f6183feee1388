// Two processes on one SQLite file store the same fact at the same moment: one memory results.
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { build } from "esbuild";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openTestService, tempDir, workspaceOf } from "./support.js";

const tmp = tempDir();
const children: ChildProcess[] = [];
let childScript = "";

beforeAll(async () => {
  // The child is TypeScript; bundle it so plain node can run it (better-sqlite3 stays a runtime require).
  childScript = join(tmp.dir, "child-store.mjs");
  await build({
    entryPoints: [resolve(import.meta.dirname, "child-store.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: childScript,
    external: ["better-sqlite3"],
    logLevel: "silent",
  });
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  tmp.cleanup();
});

function startChild(dbPath: string, apiKey: string, text: string, times: number) {
  const child = spawn(process.execPath, [childScript, dbPath, apiKey, text, String(times)], {
    env: { ...process.env, NODE_PATH: resolve(import.meta.dirname, "../../node_modules") },
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const queue: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  lines.on("line", (line) => (waiters.length ? waiters.shift()!(line) : queue.push(line)));
  const nextLine = () => new Promise<string>((res) => (queue.length ? res(queue.shift()!) : waiters.push(res)));
  return { child, nextLine };
}

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
  expect(got.memories.map((m) => m.memory_id)).toEqual([results[0]![0]]);
  expect((await service.status(auth)).memory_count).toBe(1);
  await service.close();
});
