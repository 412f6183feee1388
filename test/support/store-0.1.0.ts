// A store written by brain-mcp 0.1.0 (test/fixtures/store-0.1.0: text ids), and what a service that migrated it must
// answer: every memory, key, workspace, idempotency record and usage event kept, old keys authenticating, retrieve
// answering the same memories in the same order as 0.1.0 did, new ids continuing above the old ones.
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { expect } from "vitest";
import { MIGRATIONS } from "../../src/service/store/postgres/schema.js";
import { ROOT, call } from "./service.js";

export const FIXTURE_DIR = resolve(ROOT, "test", "fixtures", "store-0.1.0");

interface RetrievedV010 {
  memory_id: string;
  text: string;
  score: number;
  similarity: number;
  importance: number;
  meta: Record<string, unknown>;
}

/** answers.json: what 0.1.0 answered (see make.mjs). */
export interface Answers010 {
  keys: { first: string; second: string; revoked: string };
  idempotency: { key: string; body: { text: string; meta: Record<string, unknown> }; first: Record<string, unknown> };
  memories: { id: string; workspace: string; text: string; created_at: number }[];
  usage_before_retrievals: { name: string; kind: string; n: number }[];
  retrievals: { query: string; top_k: number; answer: { memories: RetrievedV010[] } }[];
}

export async function readAnswers(): Promise<Answers010> {
  const { readFile } = await import("node:fs/promises");
  return JSON.parse(await readFile(join(FIXTURE_DIR, "answers.json"), "utf8")) as Answers010;
}

/**
 * A copy of the 0.1.0 file, its idempotency record dated now: 0.1.0 answered the replay within the 24 hours a record
 * lives, and the copy must let the migrated service be asked within them too.
 */
export function copyOldSqliteStore(): string {
  const path = join(mkdtempSync(join(tmpdir(), "brain-010-")), "brain.db");
  copyFileSync(join(FIXTURE_DIR, "store.db"), path);
  const db = new Database(path);
  db.prepare("UPDATE idempotency SET created_at = ?").run(Date.now());
  db.close();
  return path;
}

/** The 0.1.0 PostgreSQL schema (migration 1, as 0.1.0 applied it) holding the fixture's rows, as 0.1.0 would have. */
export async function loadOldPostgresStore(url: string): Promise<void> {
  const old = new Database(join(FIXTURE_DIR, "store.db"), { readonly: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    // brain_migrations exactly as 0.1.0's migrate() made it, recording version 1 only.
    await client.query(
      `CREATE TABLE brain_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await client.query(MIGRATIONS[0]!.sql);
    await client.query("INSERT INTO brain_migrations (version, name) VALUES ($1, $2)", [1, MIGRATIONS[0]!.name]);
    const copy = async (table: string, rows: Record<string, unknown>[]) => {
      for (const row of rows) {
        const columns = Object.keys(row);
        await client.query(
          `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
          columns.map((c) => row[c]),
        );
      }
    };
    await copy("workspaces", old.prepare("SELECT * FROM workspaces").all() as Record<string, unknown>[]);
    await copy("api_keys", old.prepare("SELECT * FROM api_keys").all() as Record<string, unknown>[]);
    await copy(
      "memories",
      old.prepare("SELECT m.*, v.vector FROM memories m JOIN memory_vectors v ON v.memory_id = m.id").all() as Record<string, unknown>[],
    );
    const idempotency = old.prepare("SELECT * FROM idempotency").all() as Record<string, unknown>[];
    await copy(
      "idempotency_keys",
      idempotency.map((r) => ({ ...r, created_at: Date.now() })),
    ); // see copyOldSqliteStore
    await copy(
      "usage_events",
      old.prepare("SELECT workspace_id, kind, memory_id, created_at FROM usage_events").all() as Record<string, unknown>[],
    );
    // A drained bucket of the first key: it must still be that key's after the migration.
    const firstKey = old.prepare("SELECT id FROM api_keys ORDER BY created_at, id LIMIT 1").pluck().get() as string;
    await client.query("INSERT INTO rate_buckets (key_id, tokens, updated_ms, allowed) VALUES ($1, 0.5, $2, false)", [
      firstKey,
      Date.now(),
    ]);
    await client.query("COMMIT");
  } finally {
    old.close();
    await client.end();
  }
}

/** Rows of the migrated store, the same SQL on both stores; bigints read back as numbers. */
export type StoreQuery = (sql: string) => Promise<Record<string, unknown>[]>;

export const sqliteQuery =
  (path: string): StoreQuery =>
  async (sql) => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare(sql).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  };

export const postgresQuery =
  (url: string): StoreQuery =>
  async (sql) => {
    // bigint (ids, counts) as numbers, as the store itself reads them
    const getTypeParser = (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as "text"));
    const client = new pg.Client({ connectionString: url, types: { getTypeParser: getTypeParser as never } });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };

const store = (baseURL: string, key: string, json: unknown, headers: Record<string, string> = {}) =>
  call(baseURL, "POST", "/v1/memory/store", { key, json, headers });

/**
 * Checks a service that opened (and so migrated) the 0.1.0 store; `admin` runs `brain-mcp admin --json` on it.
 * Order matters: the replays of 0.1.0's retrievals come first, from the access counts 0.1.0 started from.
 */
export async function expectMigrated(
  baseURL: string,
  query: StoreQuery,
  admin: (args: string[]) => Promise<Record<string, unknown>>,
): Promise<void> {
  const answers = await readAnswers();

  // Every memory, numbered 1.. in creation order (created_at, then the old id), in the workspace it was in.
  const memories = await query(
    "SELECT m.id, m.text, w.name AS workspace FROM memories m JOIN workspaces w ON w.id = m.workspace_id ORDER BY m.id",
  );
  expect(memories).toEqual(answers.memories.map((m, i) => ({ id: i + 1, text: m.text, workspace: m.workspace })));
  const idOf = new Map(memories.map((m) => [m.text as string, m.id as number]));

  // Usage events kept, now under integer workspace ids.
  const usage = await query(
    "SELECT w.name, u.kind, count(*) AS n FROM usage_events u JOIN workspaces w ON w.id = u.workspace_id GROUP BY w.name, u.kind ORDER BY w.name, u.kind",
  );
  expect(usage.map((u) => ({ ...u, n: Number(u.n) }))).toEqual(answers.usage_before_retrievals);
  const writeEvents = await query("SELECT memory_id FROM usage_events WHERE kind = 'write' ORDER BY id");
  for (const e of writeEvents) expect([...idOf.values()]).toContain(e.memory_id);

  // serve re-embeds the old model's vectors in the background at start; wait until health counts none left.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const health = await call(baseURL, "GET", "/v1/optimize/health", { key: answers.keys.first });
    const pending = health.json.recommendations.some((r: { code: string }) => r.code === "memories_need_reembedding");
    if (!pending) break;
    expect(Date.now(), "memories still wait for re-embedding").toBeLessThan(deadline);
    await new Promise((r) => setTimeout(r, 200));
  }

  // The old key retrieves 0.1.0's best answer first, with the same ids, importance and meta; 0.1.0 ranked with
  // another model (USE-lite), so the rest of the order and the similarities are the current model's own.
  for (const r of answers.retrievals) {
    const res = await call(baseURL, "POST", "/v1/memory/retrieve", { key: answers.keys.first, json: { query: r.query, top_k: r.top_k } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.memories[0].text, r.query).toBe(r.answer.memories[0]!.text);
    for (const m of res.json.memories as Record<string, unknown>[]) {
      const was = r.answer.memories.find((old) => old.text === m.text);
      if (was) expect(m).toMatchObject({ id: idOf.get(was.text), importance: was.importance, meta: was.meta });
    }
  }

  // status: the first workspace and its first key are number 1.
  const status = await call(baseURL, "GET", "/v1/status", { key: answers.keys.first });
  expect(status.json).toMatchObject({ workspace_id: 1, workspace_name: "default", plan_name: "free", api_key_id: 1, memory_count: 7 });
  const second = await call(baseURL, "GET", "/v1/status", { key: answers.keys.second });
  expect(second.json).toMatchObject({ workspace_id: 2, workspace_name: "second", api_key_id: 2, memory_count: 2 });
  // The revoked key stays revoked.
  expect((await call(baseURL, "GET", "/v1/status", { key: answers.keys.revoked })).status).toBe(401);

  // The idempotent store made before the migration replays in the new shape, and records nothing.
  const writesBefore = (await query("SELECT count(*) AS n FROM usage_events WHERE kind = 'write'"))[0]!.n;
  const replay = await store(baseURL, answers.keys.first, answers.idempotency.body, { "idempotency-key": answers.idempotency.key });
  expect(replay.status, replay.text).toBe(200);
  const was = answers.idempotency.first as { importance: number; categories: string[]; temporal: unknown };
  expect(replay.json).toEqual({
    status: "ok",
    memory_id: idOf.get(answers.idempotency.body.text),
    workspace_id: 1,
    dedup: { action: "stored_new", existing_id: null },
    importance: was.importance,
    categories: was.categories,
    temporal: was.temporal,
  });
  expect(Object.keys(replay.json)).toEqual(["status", "memory_id", "workspace_id", "dedup", "importance", "categories", "temporal"]);
  expect((await query("SELECT count(*) AS n FROM usage_events WHERE kind = 'write'"))[0]!.n).toBe(writesBefore);

  // New ids lie above the old ones: memories, workspaces and keys.
  const fresh = await store(baseURL, answers.keys.first, { text: "The release train leaves every other Wednesday at noon." });
  expect(fresh.json).toMatchObject({ workspace_id: 1, dedup: { action: "stored_new" } });
  // A new memory's id is drawn at random above every id the old sequence gave (src/service/store/memory-ids.ts).
  expect(Number.isSafeInteger(fresh.json.memory_id) && fresh.json.memory_id > answers.memories.length).toBe(true);
  const merged = await store(baseURL, answers.keys.second, { text: "Carol manages the hiring pipeline for data engineers." });
  expect(merged.json).toMatchObject({
    memory_id: idOf.get("Carol manages the hiring pipeline for data engineers."),
    workspace_id: 2,
    dedup: { action: "merged" },
  });
  const made = await admin(["workspace", "create", "--name", "after-migration"]);
  expect(made).toMatchObject({ workspace_id: 3, key_id: 4 });
}
