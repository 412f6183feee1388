#!/usr/bin/env node
// The first retrieve after a restart, several builds alternately over one store (issue 27): each round starts each
// build's `serve` in turn, sends one retrieve as soon as it prints "listening", and reports its wall time, the serve
// process's CPU when the answer came (and since it listened), its resident set, the warm-up's "vector index loaded" line and the load.
// The store is seeded beforehand, e.g. `node test/bench/retrieval-scale.js --database-url URL --sizes 100000 --real 800
// --restarts 2` (the second start stores the index's snapshot).
//
// Usage: node test/bench/first-retrieve.js --database-url URL | --db FILE  --builds /work/base,. [--rounds 3]
//          [--workspace 1] [--query "some words"] [--node-args=--cpu-prof,--cpu-prof-dir=DIR]
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { startService } from "./service-proc.js";

const { values } = parseArgs({
  options: {
    "database-url": { type: "string" },
    db: { type: "string" },
    builds: { type: "string", default: "." },
    rounds: { type: "string", default: "3" },
    workspace: { type: "string", default: "1" },
    query: { type: "string", default: "a quiet evening with old friends" },
    "node-args": { type: "string", default: "" },
  },
});
const location = values["database-url"] ? { databaseUrl: values["database-url"] } : { dbPath: values.db };
const builds = values.builds.split(",").map((b) => resolve(b));
const binOf = (build) => join(build, "bin", "brain-mcp.js");
const nodeArgs = values["node-args"] ? values["node-args"].split(",") : [];
const env = { BRAIN_LOG: "info", BRAIN_RATE_LIMIT_RPS: "100000", BRAIN_RATE_LIMIT_BURST: "100000" };

// A key of the seeded workspace, made by the first build.
const storeArgs = location.databaseUrl ? ["--database-url", location.databaseUrl] : ["--db", location.dbPath];
const apiKey = JSON.parse(
  execFileSync(process.execPath, [binOf(builds[0]), "admin", "key", "create", values.workspace, ...storeArgs, "--json"]).toString(),
).api_key;
const credentials = { apiKey, workspaceId: Number(values.workspace) };

console.log(`first retrieve after a restart: ${builds.join(" vs ")}; ${values.rounds} rounds; load ${loadavg()[0].toFixed(1)}`);
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const build of builds) {
    const service = await startService({ ...location, env, binPath: binOf(build), credentials, nodeArgs });
    const cpuAtListen = service.cpuMs();
    const started = performance.now();
    const res = await fetch(`${service.url}/v1/memory/retrieve`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ query: values.query, top_k: 5 }),
    });
    const json = await res.json();
    const ms = performance.now() - started;
    if (!res.ok) throw new Error(JSON.stringify(json));
    const cpu = service.cpuMs();
    const rss = service.rssMb();
    // The warm-up's load of the index, when it has finished by now.
    await new Promise((r) => setTimeout(r, 300));
    const index = service.output().match(/vector index loaded.*?"memories":(\d+).*?"ms":(\d+)/);
    console.log(
      `round ${round} ${build}: first retrieve ${ms.toFixed(1)} ms (${json.count} found); serve CPU ${cpu} ms (${cpu - cpuAtListen} since "listening"); rss ${rss.toFixed(1)} MB; ` +
        `index ${index ? `${index[1]} rows in ${index[2]} ms` : "?"}; start ${service.readyMs.toFixed(0)} ms; load ${loadavg()[0].toFixed(2)}`,
    );
    await service.stop();
  }
}
