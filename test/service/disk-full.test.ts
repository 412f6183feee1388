// SQLite on a full disk: the real `serve` over a file on a small tmpfs that a filler file then fills. Writes answer
// 503 storage_full with Retry-After, every acknowledged memory is kept, the file stays intact, and writes resume
// once space is freed, without restarting the service. Needs root (mount); elsewhere it skips and says why.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../../src/contract/limits.js";
import { unrelatedTexts } from "../postgres/processes.js";
import { call, memoryIds, startService, TEST_DATABASE_URL, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const mounted: string[] = [];

/** Mounts a tmpfs of `size` on a new temp folder, or returns why it cannot (not root, no mount in this sandbox). */
function mountTmpfs(size: string): { dir: string } | { why: string } {
  const dir = mkdtempSync(join(tmpdir(), "brain-full-disk-"));
  const res = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { encoding: "utf8" });
  if (res.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { why: (res.stderr || res.error?.message || `mount exited ${res.status}`).trim() };
  }
  mounted.push(dir);
  return { dir };
}

function unmount(dir: string): void {
  spawnSync("umount", ["-l", dir]);
  rmSync(dir, { recursive: true, force: true });
}

afterAll(() => {
  for (const dir of mounted.splice(0)) unmount(dir);
});

const probe = process.getuid?.() === 0 ? mountTmpfs("64k") : { why: "not root" };
const cannotMount = "why" in probe ? probe.why : null;
if ("dir" in probe) unmount(mounted.splice(mounted.indexOf(probe.dir), 1)[0]!);
if (cannotMount) process.stderr.write(`disk-full tests skipped: cannot mount a tmpfs here (${cannotMount}); they run as root\n`);

/** Writes a filler file until the file system refuses another byte; returns its path. */
function fillDisk(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  try {
    for (const size of [256 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

describe.skipIf(cannotMount !== null || TEST_DATABASE_URL)("SQLite on a full disk", () => {
  let started: ServiceHandle | undefined;
  afterAll(async () => {
    await started?.stop();
  });

  it("answers 503 storage_full with Retry-After, keeps every acknowledged memory intact, and writes again once space returns", async () => {
    const mount = mountTmpfs("4m");
    if (!("dir" in mount)) throw new Error(`mount failed: ${mount.why}`);
    const svc = await startService({ dbPath: join(mount.dir, "brain.db"), env: { BRAIN_EMBEDDER: "lexical" } });
    started = svc;
    const texts = unrelatedTexts(60, 11);
    const acked = new Map<number, string>();
    const store = (text: string) => call(svc.baseURL, "POST", "/v1/memory/store", { key: svc.apiKey, json: { text } });

    for (const text of texts.slice(0, 10)) {
      const res = await store(text);
      expect(res.status, res.text).toBe(200);
      acked.set(res.json.memory_id, text);
    }

    const filler = fillDisk(mount.dir);
    // SQLite may still place a write in pages it already holds; the first that needs a new one is refused.
    const refusals: Awaited<ReturnType<typeof store>>[] = [];
    for (const text of texts.slice(10, 50)) {
      const res = await store(text);
      if (res.status === 200) acked.set(res.json.memory_id, text);
      else refusals.push(res);
      if (refusals.length >= 3) break;
    }
    expect(refusals.length).toBeGreaterThan(0);
    for (const res of refusals) {
      expect(res.status, res.text).toBe(503);
      expect(res.json.error).toMatchObject({ type: "service_unavailable_error", code: "storage_full" });
      expect(res.json.error.message).toMatch(/disk is full/);
      expect(res.headers.get("retry-after")).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    }
    // status still answers, and says the service cannot write
    const status = await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey });
    expect(status.status).toBe(200);
    expect(status.json.healthy).toBe(false);
    expect(svc.child.exitCode).toBeNull();
    expect(svc.stderr()).toContain('"error_code":"storage_full"');

    rmSync(filler);
    const resumed = await store(texts[55]!);
    expect(resumed.status, resumed.text).toBe(200);
    acked.set(resumed.json.memory_id, texts[55]!);
    const healthy = await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey });
    expect(healthy.json.healthy).toBe(true);
    expect(healthy.json.memory_count).toBe(acked.size);

    expect(await svc.stop()).toEqual({ code: 0, signal: null });
    const db = new Database(svc.dbPath!, { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const rows = db.prepare("SELECT id, text FROM memories WHERE workspace_id = ?").all(svc.workspaceId) as {
        id: number;
        text: string;
      }[];
      expect(new Map(rows.map((r) => [r.id, r.text]))).toEqual(acked);
    } finally {
      db.close();
    }
    expect([...(await memoryIds(svc, svc.workspaceId))].sort()).toEqual([...acked.keys()].sort());
  });
});
