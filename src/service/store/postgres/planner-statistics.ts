// The planner's picture of each workspace's size, kept within a factor of two of the truth (PostgreSQL).
//
// A retrieve's lexical statement reads, per query word, the memories of one workspace that hold it; the planner
// chooses how from the statistics of the last ANALYZE. A workspace filled after that ANALYZE (a new workspace, an
// import, a workspace growing in a large table, where autovacuum waits for a tenth of the table to change) looks to
// it like a row or two, and it then reads every memory of the workspace through the workspace's btree, testing each
// against the word, instead of the words' GIN index: at 10,000 memories a retrieve took 60-68 ms instead of 15
// (test/bench/README.md, "PostgreSQL: a workspace filled after the last ANALYZE"). No form of the statement is right
// for every table (the GIN index alone suits a workspace that is most of the table, both indexes together one of many
// workspaces), so the statistics are kept true instead: when a lexical search reports a workspace of at least
// MIN_MEMORIES, the first time in this process and again each time it has doubled since, the planner's estimate for it
// is read (EXPLAIN plans, runs nothing), and when it is under half the real size, the table is analyzed. Off the
// request path, one at a time, bounded by the pool's statement timeout like any statement.
import type { ServiceLog } from "../../process/log.js";

/** Smaller workspaces are read quickly whichever path the planner takes. */
export const MIN_MEMORIES = 1_000;

export interface PlannerStatistics {
  /** A workspace's real size, as a lexical search read it. Returns at once; the check (if due) runs in background. */
  sized(workspaceId: number, memories: number): void;
  /** The check in progress, if any (tests; close). */
  settled(): Promise<void>;
}

type Query = (sql: string) => Promise<{ rows: Record<string, unknown>[] }>;

export function plannerStatistics(query: Query, log?: ServiceLog): PlannerStatistics {
  /** Each workspace's size when it was last checked. */
  const checkedAt = new Map<number, number>();
  let running: Promise<void> | null = null;
  let disabled = false;

  async function check(workspaceId: number, memories: number): Promise<void> {
    // The id is a safe integer (the store's own), so it is written into the statement: a literal gets the estimate
    // for this workspace, where a parameter could get a generic one.
    const { rows } = await query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM memories WHERE workspace_id = ${workspaceId}`);
    const plan = rows[0]?.["QUERY PLAN"] as [{ Plan: { "Plan Rows": number } }] | undefined;
    const estimated = plan?.[0]?.Plan?.["Plan Rows"] ?? 0;
    if (estimated * 2 >= memories) return;
    const started = performance.now();
    await query("ANALYZE memories");
    log?.info("postgres planner statistics refreshed", {
      workspace_id: workspaceId,
      memories,
      estimated,
      ms: Math.round(performance.now() - started),
    });
  }

  return {
    sized(workspaceId, memories) {
      if (disabled || running || !Number.isSafeInteger(workspaceId) || memories < MIN_MEMORIES) return;
      if (memories < 2 * (checkedAt.get(workspaceId) ?? 0)) return;
      checkedAt.set(workspaceId, memories);
      running = check(workspaceId, memories)
        .catch((err: unknown) => {
          // Not the table's owner (ANALYZE is the owner's): said once, not tried again. Anything else (the store
          // away, the statement's time bound): tried again when the workspace has doubled. Requests go on either way.
          const denied = (err as { code?: string }).code === "42501";
          if (denied) disabled = true;
          log?.[denied ? "warn" : "debug"](
            `postgres planner statistics not refreshed${denied ? "; not tried again in this process" : ""}`,
            { error: String((err as Error).message ?? err).split("\n")[0] },
          );
        })
        .finally(() => {
          running = null;
        });
    },
    settled: () => running ?? Promise.resolve(),
  };
}
