// SQLite's lexical index with the trigram tokenizer (migration 7): a store written before it (schema 6, the unicode61
// index) is rebuilt in place when `serve` opens it, every memory findable by a piece of its words and still filed under
// its own workspace; memories written afterwards enter the new index through its triggers.
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it, vi } from "vitest";
import { SQLITE_SCHEMA_VERSION } from "../../src/service/store/sqlite/index.js";
import { ROOT, call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FIXTURE = join(ROOT, "test", "fixtures", "store-words-index");
const fixture = JSON.parse(readFileSync(join(FIXTURE, "store.json"), "utf8")) as {
  api_key: string;
  other_api_key: string;
  other_memories: string[];
  memories: { text: string; inner: string }[];
};
const running: ServiceHandle[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

function copyOfFixture(): string {
  const db = join(mkdtempSync(join(tmpdir(), "brain-trigram-")), "store.db");
  copyFileSync(join(FIXTURE, "store.db"), db);
  return db;
}

/** The texts the lexical index files under `workspace` for `word`, read from the file beside the running service. */
function indexed(path: string, workspace: number, word: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (
      db
        .prepare("SELECT m.text FROM memory_text JOIN memories m ON m.id = memory_text.rowid WHERE memory_text MATCH ? ORDER BY m.text")
        .all(`workspace : "w${workspace}w" AND text : "${word}"`) as { text: string }[]
    ).map((r) => r.text);
  } finally {
    db.close();
  }
}

async function retrieve(service: ServiceHandle, key: string, query: string): Promise<string[]> {
  const res = await call(service.baseURL, "POST", "/v1/memory/retrieve", { key, json: { query, top_k: 5 } });
  expect(res.status).toBe(200);
  return res.json.memories.map((m: { text: string }) => m.text);
}

it.skipIf(process.env.BRAIN_TEST_DATABASE_URL)(
  "serve rebuilds a schema-6 store's word index as a trigram index: every memory kept, indexed by part of a word, in its own workspace",
  async () => {
    const path = copyOfFixture();
    const before = new Database(path, { readonly: true });
    expect(before.pragma("user_version", { simple: true })).toBe(6);
    // The old index matches whole words only.
    expect(before.prepare("SELECT count(*) AS n FROM memory_text WHERE memory_text MATCH ?").get('text : "painting"')).toEqual({ n: 0 });
    before.close();

    const service = await startService({ dbPath: path, noWorkspace: true });
    running.push(service);
    const db = new Database(path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect((db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_text'").get() as { sql: string }).sql).toContain("trigram");
    expect(db.prepare("SELECT count(*) AS n FROM memories").get()).toEqual({ n: fixture.memories.length + fixture.other_memories.length });
    db.close();

    for (const { text, inner } of fixture.memories) {
      expect(indexed(path, 1, inner), inner).toEqual([text]);
      // "night" inside "nightly" is a word fragment, which alone never brings a memory back (issue 30); the others
      // are the word itself or an inflection of it, and come back.
      const answer = await retrieve(service, fixture.api_key, `What do we know about the ${inner}?`);
      if (inner === "night") expect(answer, inner).not.toContain(text);
      else expect(answer, inner).toContain(text);
    }
    // The other workspace's memory holds "paintings" too: each index entry stays under its own workspace.
    expect(indexed(path, 2, "painting")).toEqual(fixture.other_memories);
    expect(await retrieve(service, fixture.api_key, "paintings")).not.toContain(fixture.other_memories[0]);

    // A memory stored after the upgrade enters the new index (the triggers were rebuilt with it).
    const stored = await call(service.baseURL, "POST", "/v1/memory/store", {
      key: fixture.api_key,
      json: { text: "Jonas repaints the garden shed every spring." },
    });
    expect(stored.status).toBe(200);
    expect(indexed(path, 1, "paint")).toEqual([
      "Caroline: I finished three paintings of the lake last month.",
      "Jonas repaints the garden shed every spring.",
    ]);
  },
);
