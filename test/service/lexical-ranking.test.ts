// SQLite's lexical search ranks the index's postings in JavaScript (shared-sql.ts rankPostings) instead of in the
// ranking statement, which cost 3-4x the postings' reads: the answers must be the statement's, match for match.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchTerms } from "../../src/service/retrieval/search-terms.js";
import { lexicalMatches, lexicalSearchStatement, matchableTerms } from "../../src/service/store/shared-sql.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import type { MemoryStore } from "../../src/service/store/types.js";
import { expectSameLexicalMatches } from "../support/lexical.js";
import { newMemory } from "../support/new-memory.js";

const PEOPLE = ["Maria", "Tomas", "Priya", "Chen", "Amara"];
const THINGS = ["the billing service", "the staging cluster", "the release checklist", "the on-call rota"];
const fact = (i: number) =>
  `${PEOPLE[i % 5]} owns ${THINGS[i % 4]} for team ${i} and reviews it every ${["Monday", "Friday"][i % 2]} (ticket ${1000 + i}).`;
const QUERIES = [
  "Who owns the billing service for team 12?",
  "What does Priya review on Fridays?",
  "ticket 1007 staging",
  "Which team owns the on-call rota and the release checklist?",
  "bill servic chen",
  "zeppelin owner",
];

describe("SQLite's lexical ranking", () => {
  const dir = mkdtempSync(join(tmpdir(), "brain-lexical-ranking-"));
  const dbPath = join(dir, "brain.db");
  let store: MemoryStore;
  let ws: number;

  beforeAll(async () => {
    store = openSqliteStore(dbPath);
    ws = (await store.insertWorkspace({ name: "ranking", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
    const other = (await store.insertWorkspace({ name: "other", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 }))
      .id;
    await store.writeInWorkspace(ws, async (tx) => {
      for (let i = 0; i < 60; i++) await tx.insertMemory(newMemory(ws, fact(i)));
    });
    await store.writeInWorkspace(other, async (tx) => {
      for (let i = 0; i < 10; i++) await tx.insertMemory(newMemory(other, fact(i)));
    });
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the ranking statement's matches, scores, query weight, sizes and words, in its order", async () => {
    const reference = new Database(dbPath, { readonly: true });
    try {
      for (const query of QUERIES) {
        for (const limit of [3, 200]) {
          const terms = matchableTerms(searchTerms(query));
          const { sql, params } = lexicalSearchStatement("sqlite", ws, terms, limit);
          const expected = lexicalMatches(reference.prepare(sql).all(...params) as Parameters<typeof lexicalMatches>[0]);
          const got = await store.searchText(ws, searchTerms(query), limit);
          expectSameLexicalMatches(got, expected);
        }
      }
    } finally {
      reference.close();
    }
  });

  it("in a store of one workspace gives the same answers, and keeps another process's new workspace out", async () => {
    // One workspace: the search leaves the workspace out of its MATCH (every indexed memory is that workspace's).
    const aloneDir = mkdtempSync(join(tmpdir(), "brain-lexical-alone-"));
    const alonePath = join(aloneDir, "brain.db");
    const alone = openSqliteStore(alonePath);
    const neighbour = openSqliteStore(alonePath); // another process on the same file
    try {
      const first = (await alone.insertWorkspace({ name: "a", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 }))
        .id;
      const ids = new Set<number>();
      await alone.writeInWorkspace(first, async (tx) => {
        for (let i = 0; i < 40; i++) ids.add((await tx.insertMemory(newMemory(first, fact(i)))).id);
      });
      const reference = new Database(alonePath, { readonly: true });
      const expected = (query: string, limit: number) => {
        const { sql, params } = lexicalSearchStatement("sqlite", first, matchableTerms(searchTerms(query)), limit);
        return lexicalMatches(reference.prepare(sql).all(...params) as Parameters<typeof lexicalMatches>[0]);
      };
      try {
        for (const query of QUERIES) expectSameLexicalMatches(await alone.searchText(first, searchTerms(query), 200), expected(query, 200));
        // The neighbour adds a second workspace holding the same texts; the next search sees it at once.
        const second = (
          await neighbour.insertWorkspace({ name: "b", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })
        ).id;
        await neighbour.writeInWorkspace(second, async (tx) => {
          for (let i = 0; i < 40; i++) await tx.insertMemory(newMemory(second, fact(i)));
        });
        let matched = 0;
        for (const query of QUERIES) {
          const got = await alone.searchText(first, searchTerms(query), 200);
          expectSameLexicalMatches(got, expected(query, 200));
          for (const match of got) expect(ids.has(match.id)).toBe(true);
          matched += got.length;
          if (got.length > 0) expect(got[0]!.total).toBe(40);
        }
        expect(matched).toBeGreaterThan(20);
      } finally {
        reference.close();
      }
    } finally {
      await neighbour.close();
      await alone.close();
      rmSync(aloneDir, { recursive: true, force: true });
    }
  });
});
