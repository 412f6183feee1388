// A PostgreSQL plan as EXPLAIN (FORMAT JSON) gives it, and every node of it, for tests that read plans; and a store
// whose planner learns only from the test.
import pg from "pg";
import { openPostgresStore, type PostgresStore } from "../../src/service/store/postgres/index.js";
import type { PgCluster } from "./pg.js";
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  /** With ANALYZE only. */
  "Actual Loops": number;
  "Recheck Cond"?: string;
  "Index Cond"?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

export function* planNodes(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* planNodes(child);
}

/**
 * A store on a new database of `cluster` and a client of its own, with autovacuum off for `memories`: the planner then
 * knows only what the test's (or the store's) own ANALYZEs told it.
 */
export async function storeWithoutAutovacuum(cluster: PgCluster): Promise<{ store: PostgresStore; client: pg.Client }> {
  const url = await cluster.createDatabase();
  const store = await openPostgresStore(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("ALTER TABLE memories SET (autovacuum_enabled = false)");
  return { store, client };
}
