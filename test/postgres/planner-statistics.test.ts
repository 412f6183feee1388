// The planner's estimate of a workspace filled after the last ANALYZE (src/service/store/postgres/planner-statistics.ts).
// With the statistics of before, a retrieve's lexical statement read every memory of such a workspace through its
// btree and tested each against the word (60-68 ms a retrieve at 10,000 memories, against 15); the store now notices,
// from the workspace size every lexical search reads, that the planner's estimate is under half of it, and analyzes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import type { PostgresStore } from "../../src/service/store/postgres/index.js";
import { MIN_MEMORIES } from "../../src/service/store/postgres/planner-statistics.js";
import { lexicalSearchStatement } from "../../src/service/store/shared-sql.js";
import { newMemory } from "../support/new-memory.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { planNodes, storeWithoutAutovacuum, type PlanNode } from "../support/pg-plan.js";

describe.skipIf(!canStartPostgres())("the planner's statistics of a workspace filled after the last ANALYZE", () => {
  let cluster: PgCluster;
  let store: PostgresStore;
  let client: pg.Client;
  let small: number;
  let filled: number;
  const created = Date.UTC(2025, 0, 1);

  const estimate = async (workspaceId: number) => {
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM memories WHERE workspace_id = ${workspaceId}`);
    return rows[0]["QUERY PLAN"][0].Plan["Plan Rows"] as number;
  };
  const analyzed = async () =>
    Number((await client.query("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'memories'")).rows[0].analyze_count);
  /** The memories scans of the lexical statement for `workspaceId` that test the word row by row over the workspace. */
  const rowByRow = async (workspaceId: number) => {
    const { sql, params } = lexicalSearchStatement("postgres", workspaceId, ["harbour"], 50);
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    return [...planNodes(rows[0]["QUERY PLAN"][0].Plan as PlanNode)].filter(
      (n) => n["Index Name"] === "memories_workspace_rev" && (n.Filter ?? "").includes("@@"),
    );
  };
  const fill = (workspaceId: number, count: number, from = 0) =>
    store.writeInWorkspace(workspaceId, async (tx) => {
      for (let i = from; i < from + count; i++) {
        const text = `memory ${i} ${i % 3 === 0 ? "harbour" : "meadow"} note ${i % 7 === 0 ? "lantern" : "pebble"}`;
        await tx.insertMemory(newMemory(workspaceId, text, created + i));
      }
    });
  const workspace = async (name: string) =>
    (await store.insertWorkspace({ name, plan: "free", billing_cycle: "monthly", status: "active", created_at: created })).id;
  /** Polls until the table's manual ANALYZE count passes `count` (the store's runs in the background). */
  const analyzedPast = async (count: number) => {
    for (const started = Date.now(); Date.now() - started < 20_000; await new Promise((r) => setTimeout(r, 50))) {
      if ((await analyzed()) > count) return true;
    }
    return false;
  };

  beforeAll(async () => {
    cluster = await startPostgres();
    // Only ANALYZEs the test or the store run: autovacuum would otherwise come at a moment of its own choosing.
    ({ store, client } = await storeWithoutAutovacuum(cluster));
    small = await workspace("small");
    await fill(small, 300);
    await client.query("ANALYZE memories");
    filled = await workspace("filled after");
    await fill(filled, 3 * MIN_MEMORIES);
  }, 180_000);

  afterAll(async () => {
    await client?.end().catch(() => {});
    await store?.close().catch(() => {});
    await cluster?.stop();
  });

  it("analyzes once a search reports a workspace the planner believes under half its size, and then plans by the words", async () => {
    // Before: the planner believes the new workspace nearly empty and would test the word on each of its rows.
    expect(await estimate(filled)).toBeLessThan(MIN_MEMORIES);
    expect(await rowByRow(filled)).not.toHaveLength(0);
    const before = await analyzed();

    expect(await store.searchText(filled, ["harbour"], 50)).toHaveLength(50);
    expect(await analyzedPast(before)).toBe(true);

    expect(await estimate(filled)).toBeGreaterThanOrEqual((3 * MIN_MEMORIES) / 2);
    expect(await rowByRow(filled)).toEqual([]);
  });

  it("does not analyze again while the estimate holds, nor for a workspace under the threshold", async () => {
    const before = await analyzed();
    for (let i = 0; i < 5; i++) {
      await store.searchText(filled, ["harbour", "lantern"], 50);
      await store.searchText(small, ["harbour"], 50);
      await store.searchTextWithVectorsSince(filled, ["meadow"], 50, { sinceRev: 0, codesFor: "none", limit: 10 });
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(await analyzed()).toBe(before);
  });

  it("leaves a workspace that grew since its ANALYZE to PostgreSQL, which scales its estimate with the table", async () => {
    await fill(filled, 6 * MIN_MEMORIES, 3 * MIN_MEMORIES);
    expect(await estimate(filled)).toBeGreaterThanOrEqual((9 * MIN_MEMORIES) / 2);
    const before = await analyzed();
    await store.searchTextWithVectorsSince(filled, ["harbour"], 50, { sinceRev: 0, codesFor: "none", limit: 10 });
    await store.searchText(filled, ["lantern"], 50);
    await new Promise((r) => setTimeout(r, 500));
    expect(await analyzed()).toBe(before);
  });

  it("analyzes for another new workspace, reported by the retrieve's combined statement", async () => {
    const third = await workspace("third");
    await fill(third, 2 * MIN_MEMORIES);
    expect(await estimate(third)).toBeLessThan(MIN_MEMORIES);
    const before = await analyzed();
    const { matches } = await store.searchTextWithVectorsSince(third, ["harbour"], 50, { sinceRev: 0, codesFor: "none", limit: 10 });
    expect(matches).toHaveLength(50);
    expect(await analyzedPast(before)).toBe(true);
    expect(await estimate(third)).toBeGreaterThanOrEqual(MIN_MEMORIES);
    expect(await rowByRow(third)).toEqual([]);
  });
});
