// Test-only models and a service factory over a real SQLite file in a temp dir. Never imported by src.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn, type ChildProcess } from "node:child_process";
import { basename, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Embedder, Judge } from "../../src/service/models/types.js";
import { testEmbedder, testJudge } from "./models.js";
import { openService } from "../../src/service/open.js";
import type { AdminService, MemoryService } from "../../src/service/types.js";

export interface Clock {
  now: () => Date;
  set(iso: string): void;
  advanceDays(days: number): void;
  advanceMs(ms: number): void;
}

export { bagOfWords, testEmbedder, testJudge, TEST_DIMENSIONS } from "./models.js";

export function pinnedClock(iso = "2025-06-01T12:00:00Z"): Clock {
  let ms = Date.parse(iso);
  return {
    now: () => new Date(ms),
    set: (s) => void (ms = Date.parse(s)),
    advanceDays: (d) => void (ms += d * 86_400_000),
    advanceMs: (d) => void (ms += d),
  };
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "brain-core-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function openTestService(
  dbPath: string,
  opts: { clock?: Clock; embedder?: Embedder; judge?: Judge; env?: NodeJS.ProcessEnv } = {},
): Promise<MemoryService & AdminService> {
  return openService({
    dbPath,
    env: opts.env ?? {},
    now: opts.clock?.now,
    models: { embedder: opts.embedder ?? testEmbedder(), judge: opts.judge ?? testJudge() },
  });
}

/** A workspace with one key, authenticated. */
export async function workspaceOf(service: MemoryService & AdminService, name = "test") {
  const ws = await service.createWorkspace({ name });
  const key = await service.createKey(ws.id);
  const auth = (await service.authenticate(key.apiKey))!;
  return { ws, key, auth };
}

/**
 * Child processes running a TypeScript script (bundled into `dir` once, so plain node runs it; better-sqlite3 stays
 * a runtime require), each read line by line. `stop()` kills any still running.
 */
export async function childScripts(entry: string, dir: string) {
  const { build } = await import("esbuild");
  const script = join(dir, basename(entry).replace(/\.ts$/, ".mjs"));
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: script,
    external: ["better-sqlite3"],
    logLevel: "silent",
  });
  const children: ChildProcess[] = [];
  return {
    start(...args: string[]) {
      const child = spawn(process.execPath, [script, ...args], {
        env: { ...process.env, NODE_PATH: resolve(import.meta.dirname, "../../node_modules") },
        stdio: ["pipe", "pipe", "inherit"],
      });
      children.push(child);
      const queue: string[] = [];
      const waiters: ((line: string) => void)[] = [];
      createInterface({ input: child.stdout! }).on("line", (line) => (waiters.length ? waiters.shift()!(line) : queue.push(line)));
      const nextLine = () => new Promise<string>((res) => (queue.length ? res(queue.shift()!) : waiters.push(res)));
      return { child, nextLine };
    },
    stop() {
      for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
