// The lexical search's plan on PostgreSQL, read from EXPLAIN ANALYZE: the workspace is counted once per query, whatever
// the planner knows. Before the table had statistics (a fresh table, or one just filled), the count was inlined into a
// nested loop and run once per matching memory: 1 s for a common word at 10,000 memories (docs/decisions.md, pgtail).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import type { PostgresStore } from "../../src/service/store/postgres/index.js";
import { lexicalMatches, lexicalSearchStatement } from "../../src/service/store/shared-sql.js";
import { expectSameLexicalMatches } from "../support/lexical.js";
import { newMemory } from "../support/new-memory.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { planNodes, storeWithoutAutovacuum, type PlanNode } from "../support/pg-plan.js";

const MEMORIES = 3_000;

describe.skipIf(!canStartPostgres())("the lexical search's plan on PostgreSQL", () => {
  let cluster: PgCluster;
  let store: PostgresStore;
  let client: pg.Client;
  let workspaceId: number;

  beforeAll(async () => {
    cluster = await startPostgres();
    // No statistics for the whole test: what a table looks like between a bulk load and autovacuum's first analyze.
    ({ store, client } = await storeWithoutAutovacuum(cluster));
    const created = Date.UTC(2025, 0, 1);
    workspaceId = (
      await store.insertWorkspace({ name: "plan", plan: "free", billing_cycle: "monthly", status: "active", created_at: created })
    ).id;
    await store.writeInWorkspace(workspaceId, async (tx) => {
      for (let i = 0; i < MEMORIES; i++) {
        // "harbour" in every third memory: a common word, hundreds of matches
        const text = `memory ${i} ${i % 3 === 0 ? "harbour" : "meadow"} note ${i % 7 === 0 ? "lantern" : "pebble"}`;
        await tx.insertMemory(newMemory(workspaceId, text, created + i));
      }
    });
  }, 120_000);

  afterAll(async () => {
    await client?.end().catch(() => {});
    await store?.close().catch(() => {});
    await cluster?.stop();
  });

  it.each([[["harbour"]], [["harbour", "lantern"]]])(
    "runs no part of the plan once per matching memory, even before the table has statistics (%j)",
    async (terms) => {
      const { rows: stats } = await client.query(
        "SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE relname = 'memories'",
      );
      expect(stats[0]).toEqual({ last_analyze: null, last_autoanalyze: null });
      const { sql, params } = lexicalSearchStatement("postgres", workspaceId, terms, 50);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      const plan = (rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
      // Each word's lookup runs once per word; everything else once. "harbour" alone matches 1,000 memories.
      const loops = [...planNodes(plan)].map((n) => n["Actual Loops"]);
      expect(Math.max(...loops)).toBeLessThanOrEqual(terms.length);
      // The workspace's size is one row of the kept counts: memories are read only by the word lookups (`@@`).
      const scans = [...planNodes(plan)].filter((n) => n["Relation Name"]);
      const counted = scans.filter((n) => n["Relation Name"] === "workspace_memory_counts");
      expect(counted.map((n) => n["Actual Loops"])).toEqual([1]);
      for (const n of scans.filter((s) => s["Relation Name"] === "memories")) {
        expect(`${n["Recheck Cond"]} ${n["Index Cond"]} ${n.Filter}`).toContain("@@");
      }
    },
  );

  it("writes each memory straight into the index: no pending list for searches to scan or a store to merge", async () => {
    await client.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const { rows } = await client.query("SELECT pending_pages, pending_tuples FROM pgstatginindex('memories_lexemes')");
    expect(rows[0]).toEqual({ pending_pages: 0, pending_tuples: "0" });
  });

  it("ranks as before: each memory scores the IDFs of the query words it holds", async () => {
    // And the answer is the same: the memories holding both words first, each scoring both words' IDFs.
    const idf = (n: number) => Math.log(1 + (MEMORIES - n + 0.5) / (n + 0.5));
    const found = await store.searchText(workspaceId, ["harbour", "lantern"], 50);
    expect(found).toHaveLength(50);
    for (const m of found) expect(m.score).toBeCloseTo(idf(MEMORIES / 3) + idf(Math.ceil(MEMORIES / 7)), 9);
  });

  it.each([
    [["harbour"]],
    [["harbour", "lantern"]],
    [["lantern", "meadow", "absent"]],
    [["note", "pebble", "memory"]],
    [["12", "harbour"]],
  ])("finds what lexicalSearchStatement finds, ranked alike, from the words' postings (%j)", async (terms) => {
    const { sql, params } = lexicalSearchStatement("postgres", workspaceId, terms, 50);
    const expected = lexicalMatches((await client.query(sql, params)).rows);
    const got = await store.searchText(workspaceId, terms, 50);
    expectSameLexicalMatches(got, expected);
  });
});
