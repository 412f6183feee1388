// Test-only models and a service factory over a real SQLite file in a temp dir. Never imported by src.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
