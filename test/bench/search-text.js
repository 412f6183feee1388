#!/usr/bin/env node
// The SQLite store's lexical search alone (MemoryStore.searchText), in this process, for several builds alternated
// round by round, each on its own copy of one store file: wall p50 / p99 and mean CPU (process.cpuUsage) per query over
// 300 recall-like queries (lib.js recallQuery over the corpus), 4 rounds. A store of 10,000 memories comes from
// `node test/bench/tail.js --store sqlite --builds . --rounds 1 --retrieves 10 --stores 5 --hold` (it prints the file).
// Usage: node test/bench/search-text.js STORE_FILE WORKSPACE_ID BUILD_DIR [BUILD_DIR...]
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { corpus } from "./corpus.js";
import { percentile, recallQuery } from "./lib.js";

const [file, workspace, ...builds] = process.argv.slice(2);
if (!file || !workspace || builds.length === 0)
  throw new Error("usage: node test/bench/search-text.js STORE_FILE WORKSPACE_ID BUILD_DIR...");
const scratch = mkdtempSync(join(tmpdir(), "brain-search-text-"));
const { passages, pieces } = corpus();
const texts = [...passages, ...pieces];
const queries = Array.from({ length: 300 }, (_, i) => recallQuery(texts[(i * 37) % texts.length], i));
const runs = [];
for (const [k, build] of builds.entries()) {
  const dir = resolve(build);
  const copy = join(scratch, `${k}.db`);
  copyFileSync(file, copy);
  if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
  const { openStore } = await import(join(dir, "dist/service/store/open-store.js"));
  const { searchTerms } = await import(join(dir, "dist/service/retrieval/search-terms.js"));
  runs.push({ dir, store: await openStore({ dbPath: copy }, {}), searchTerms, cpu: [], wall: [] });
}
for (let round = 0; round < 4; round++) {
  for (const run of runs) {
    for (const query of queries) {
      const terms = run.searchTerms(query);
      const cpu = process.cpuUsage();
      const started = performance.now();
      await run.store.searchText(Number(workspace), terms, 50);
      run.wall.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      run.cpu.push((used.user + used.system) / 1000);
    }
  }
}
for (const run of runs) {
  const mean = run.cpu.reduce((a, b) => a + b, 0) / run.cpu.length;
  console.log(
    `${run.dir}: searchText wall p50 ${percentile(run.wall, 50).toFixed(2)} p99 ${percentile(run.wall, 99).toFixed(2)} ms, CPU mean ${mean.toFixed(3)} ms (n=${run.wall.length})`,
  );
  await run.store.close();
}
rmSync(scratch, { recursive: true, force: true });
