// plannerStatistics' failures (src/service/store/postgres/planner-statistics.ts), with a scripted query function: a
// role that does not own the table (ANALYZE refused) and a statement that fails for another reason. The successful
// path runs against a real PostgreSQL in test/postgres/planner-statistics.test.ts.
import { describe, expect, it } from "vitest";
import { MIN_MEMORIES, plannerStatistics } from "../../src/service/store/postgres/planner-statistics.js";

function scripted(answer: (sql: string) => Promise<{ rows: Record<string, unknown>[] }>) {
  const statements: string[] = [];
  const logged: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void logged.push({ level, msg, fields });
  const log = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  const stats = plannerStatistics(async (sql) => {
    statements.push(sql.split(" ")[0]!);
    return answer(sql);
  }, log);
  return { stats, statements, logged };
}
const estimateOf = (rows: number) => ({ rows: [{ "QUERY PLAN": [{ Plan: { "Plan Rows": rows } }] }] });
const refused = Object.assign(new Error("permission denied for table memories"), { code: "42501" });

describe("plannerStatistics", () => {
  it("says once that ANALYZE was refused and never asks again; the caller is never failed", async () => {
    const { stats, statements, logged } = scripted(async (sql) => {
      if (sql.startsWith("EXPLAIN")) return estimateOf(1);
      throw refused;
    });
    stats.sized(7, 4 * MIN_MEMORIES);
    await stats.settled();
    expect(statements).toEqual(["EXPLAIN", "ANALYZE"]);
    expect(logged.map((l) => [l.level, l.msg])).toEqual([
      ["warn", "postgres planner statistics not refreshed; not tried again in this process"],
    ]);
    for (const size of [8, 16, 32].map((n) => n * MIN_MEMORIES)) {
      stats.sized(7, size);
      stats.sized(8, size);
      await stats.settled();
    }
    expect(statements).toEqual(["EXPLAIN", "ANALYZE"]);
  });

  it("after another failure, tries again only when the workspace has doubled", async () => {
    let fail = true;
    const { stats, statements, logged } = scripted(async (sql) => {
      if (fail) throw Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
      return sql.startsWith("EXPLAIN") ? estimateOf(10) : { rows: [] };
    });
    stats.sized(3, MIN_MEMORIES);
    await stats.settled();
    expect(logged.map((l) => l.level)).toEqual(["debug"]);
    fail = false;
    stats.sized(3, MIN_MEMORIES + 1);
    await stats.settled();
    expect(statements).toEqual(["EXPLAIN"]);
    stats.sized(3, 2 * MIN_MEMORIES);
    await stats.settled();
    expect(statements).toEqual(["EXPLAIN", "EXPLAIN", "ANALYZE"]);
    expect(logged.at(-1)).toMatchObject({
      level: "info",
      msg: "postgres planner statistics refreshed",
      fields: { workspace_id: 3, memories: 2 * MIN_MEMORIES, estimated: 10 },
    });
  });

  it("asks nothing for small workspaces, estimates within half, or while a check runs", async () => {
    let release = () => {};
    const { stats, statements } = scripted(async () => {
      await new Promise<void>((r) => (release = r));
      return estimateOf(MIN_MEMORIES);
    });
    stats.sized(1, MIN_MEMORIES - 1);
    expect(statements).toEqual([]);
    stats.sized(1, 2 * MIN_MEMORIES);
    stats.sized(2, 2 * MIN_MEMORIES);
    await new Promise((r) => setTimeout(r, 10));
    release();
    await stats.settled();
    expect(statements).toEqual(["EXPLAIN"]);
  });
});
