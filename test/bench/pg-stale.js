#!/usr/bin/env node
// PostgreSQL with a workspace filled after the last ANALYZE (test/bench/README.md, "PostgreSQL: a workspace filled
// after the last ANALYZE"): one throwaway cluster with autovacuum off; before each measured run, ANALYZE of everything
// so far, then service.js fills a new workspace of SIZE memories (which the statistics know nothing of) and measures
// it through HTTP. The builds take turns, each run with its own checkout's service.js and bin. A first, unmeasured
// round fills one workspace, so that every measured ANALYZE sees a table with memories in it.
// Usage: npm run build && node test/bench/pg-stale.js [--builds BASE_CHECKOUT,.] [--rounds 3] [--size 10000]
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { startPostgres } from "./pg.js";

const { values } = parseArgs({
  options: {
    builds: { type: "string", default: "." },
    rounds: { type: "string", default: "3" },
    size: { type: "string", default: "10000" },
  },
});
const builds = values.builds.split(",").map((b) => resolve(b));
const pg = await startPostgres();
const client = new (createRequire(import.meta.url)("pg").Client)({ connectionString: pg.url });
await client.connect();
await client.query("ALTER SYSTEM SET autovacuum = off");
await client.query("SELECT pg_reload_conf()");
const analyzed = async () =>
  Number((await client.query("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'memories'")).rows[0]?.analyze_count ?? 0);
const run = (dir) =>
  execFileSync(process.execPath, ["test/bench/service.js", "--store", "postgres", "--sizes", values.size, "--database-url", pg.url], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });

run(builds[0]); // the first workspace: the table is not empty at the first measured ANALYZE
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const dir of builds) {
    await client.query("ANALYZE");
    const before = await analyzed();
    const load = loadavg()[0].toFixed(2);
    const out = run(dir);
    const lines = out.split("\n").filter((l) => /^\s+(retrieve|store)\s+p50/.test(l));
    console.log(
      `round ${round} ${dir} (load ${load} -> ${loadavg()[0].toFixed(2)}); ANALYZEs by the service: ${(await analyzed()) - before}`,
    );
    for (const l of lines) console.log(`  ${l.trim()}`);
  }
}
await client.end();
await pg.stop();
