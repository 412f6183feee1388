// Several `brain-mcp serve` processes starting at the same moment on one new SQLite file make one "default"
// workspace: exactly one of them prints its key, and that key works on every one of them.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { baseEnv, call, queryStore, spawnServe, TEST_DATABASE_URL } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const KEY_LINE = /^svc_ws_[0-9A-Za-z]{32}$/gm;
const children: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }),
  );
});

// Under BRAIN_TEST_DATABASE_URL the store is shared and not new; test/postgres/first-start.test.ts covers PostgreSQL.
describe.skipIf(TEST_DATABASE_URL)("first start of two serves on one new SQLite file", () => {
  it("makes one workspace; exactly one process prints its key and the others nothing about a key", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "brain-first-")), "brain.db");
    // The lexical embedder loads in milliseconds, so both processes reach the first-workspace step together.
    const env = baseEnv({ BRAIN_EMBEDDER: "lexical" });
    const serves = await Promise.all([0, 1].map(() => spawnServe(["--port", "0", "--db", dbPath], env)));
    children.push(...serves.map((s) => s.child));

    const rows = await queryStore<{ workspaces: number; keys: number }>(
      { dbPath },
      {
        sqlite: "SELECT (SELECT count(*) FROM workspaces) AS workspaces, (SELECT count(*) FROM api_keys) AS keys",
        pg: "",
      },
    );
    expect(rows[0]).toEqual({ workspaces: 1, keys: 1 });

    const printed = serves.map((s) => s.stdout().match(KEY_LINE) ?? []);
    expect(printed.map((keys) => keys.length).sort()).toEqual([0, 1]);
    const quiet = serves[printed.findIndex((keys) => keys.length === 0)]!.stdout();
    expect(quiet).not.toMatch(/svc_ws_|API key|created workspace/);

    const key = printed.flat()[0]!;
    for (const s of serves) {
      const status = await call(s.url, "GET", "/v1/status", { key });
      expect(status.status).toBe(200);
      expect(status.json.workspace_name).toBe("default");
    }
  });
});
