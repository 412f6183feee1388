#!/usr/bin/env node
// A fleet: N agents (client library instances) sharing one workspace key, mixing stores and recalls for D seconds
// under the default rate limit, each paced so that together they offer a chosen share of it. Reports the offered and
// achieved rates, p50/p99 per operation, every error (by kind), and duplicate memories read from the store afterwards:
// identical texts kept twice, and texts several agents stored at the same moment kept more than once.
// Before the fleet, the same run measures the model alone on one core (the service's embed worker, batches of the
// service's default size, the fleet's mix of texts) and reports the fleet's requests/s as a share of two cores of it.
// Usage: npm run build && node test/bench/fleet.js [--agents 50] [--seconds 30] [--offered 1] (share of the rate limit) [--processes 1]
//          [--postgres] (a throwaway cluster; or --database-url URL) [--model-seconds 6]
//          [--profile DIR] (V8 CPU profiles of every serve process and its workers; test/bench/profile-summary.js)
//          [--project DIR] (the packages as a user installs them: DIR's node_modules/brain-mcp-service serves and its
//          node_modules/brain-mcp is the agents' client, not this checkout's build; see installed.js for making DIR)
// The rate: requests completed inside the window, per second of it. Each agent keeps sending until the deadline, so
// the requests in flight then finish after it; counted over the window and the drain (the figure printed before
// 2026-11-28's fourth session, still printed beside it), a fleet offered exactly the rate limit could never reach it.
// To see what the service could serve beyond the default limit, raise it for both sides: BRAIN_RATE_LIMIT_RPS=300
// (and --offered 1 offers all of it).
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { RATE_LIMIT_BURST_DEFAULT, RATE_LIMIT_RPS_DEFAULT } from "../../dist/contract/limits.js";
import { corpus, shuffled } from "./corpus.js";
import { machine, percentile, ms, root } from "./lib.js";
import { startService } from "./service-proc.js";
import { startPostgres } from "./pg.js";
import { DEFAULT_BATCH_TEXTS } from "../../dist/service/models/batching.js";
import { modelTextsPerSecond } from "./model-capacity.js";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "50" },
    seconds: { type: "string", default: "30" },
    offered: { type: "string", default: "1" },
    processes: { type: "string", default: "1" },
    postgres: { type: "boolean", default: false },
    "database-url": { type: "string" },
    "model-seconds": { type: "string", default: "6" },
    profile: { type: "string" },
    project: { type: "string" },
  },
});
const installed = values.project ? join(values.project, "node_modules") : null;
const { Brain } = await import(installed ? pathToFileURL(join(installed, "brain-mcp", "dist", "index.js")).href : "../../dist/index.js");
const binPath = installed ? join(installed, "brain-mcp-service", "bin", "brain-mcp-service.js") : undefined;
const agents = Number(values.agents);
const seconds = Number(values.seconds);
const processes = Number(values.processes);
// The default limit unless the environment sets another (the service reads the same variables).
const limitRps = Number(process.env.BRAIN_RATE_LIMIT_RPS ?? RATE_LIMIT_RPS_DEFAULT);
const burst = Number(process.env.BRAIN_RATE_LIMIT_BURST ?? RATE_LIMIT_BURST_DEFAULT);
const offeredRps = limitRps * Number(values.offered);
const perAgentInterval = (1000 * agents) / offeredRps;

// The model alone first, while nothing else of this run competes for the cores.
const modelLoad = loadavg()[0];
const model = await modelTextsPerSecond({ batch: DEFAULT_BATCH_TEXTS, seconds: Number(values["model-seconds"]) });

const nodeArgs = values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [];
let pg = null;
let databaseUrl = values["database-url"];
if (values.postgres && !databaseUrl) databaseUrl = (pg = await startPostgres()).url;
const usePostgres = Boolean(databaseUrl);
if (processes > 1 && !usePostgres) console.log("note: several processes over one SQLite file (serialized by SQLite's write lock)");

const first = await startService({ databaseUrl, nodeArgs, binPath });
const services = [first];
for (let i = 1; i < processes; i++) {
  // Further processes over the same store: the key made by the first one works on all.
  services.push(
    await startService({
      databaseUrl,
      nodeArgs,
      binPath,
      dbPath: usePostgres ? undefined : first.dbPath,
      credentials: { apiKey: first.apiKey, workspaceId: first.workspaceId },
    }),
  );
}

/** utime + stime of a process, every thread, in ms (Linux /proc; clock ticks of 10 ms); with `children`, also of
 * its live children and those it has reaped (PostgreSQL's backends are the postmaster's children). */
function cpuMsOf(pid, { children = false } = {}) {
  const statOf = (p) => readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
  const fields = statOf(pid);
  let ticks = Number(fields[11]) + Number(fields[12]);
  if (children) {
    ticks += Number(fields[13]) + Number(fields[14]);
    for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const f = statOf(p);
        if (Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
      } catch {
        /* exited meanwhile */
      }
    }
  }
  return ticks * 10;
}

const { passages, pieces } = corpus();
const texts = shuffled([...passages, ...pieces], 7);
// Texts several agents store at about the same moment: each must end as one memory.
const shared = texts.slice(0, 200);
let cursor = shared.length;

// Warm-up outside the measured window: the first calls of a fresh process compile the model's kernels.
const warmup = { store: [], recall: [] };
for (const s of services) {
  const brain = new Brain({ apiKey: first.apiKey, baseURL: s.url });
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    await brain.memory.store(texts[texts.length - 1 - i]);
    warmup.store.push(performance.now() - t);
    t = performance.now();
    await brain.memory.retrieve(texts[texts.length - 1 - i].split(/\s+/).slice(0, 6).join(" "));
    warmup.recall.push(performance.now() - t);
  }
  await brain.close();
}

const latencies = { store: [], recall: [] };
const errors = new Map();
let merged = 0;
let stored = 0;
let started = 0;
/** Requests answered (not errors) before the deadline: the rate inside the window. */
let doneInWindow = 0;
const loadBefore = loadavg()[0];
const deadline = Date.now() + seconds * 1000;

async function agent(index) {
  const brain = new Brain({ apiKey: first.apiKey, baseURL: services[index % services.length].url, maxRetries: 2 });
  let next = Date.now() + Math.random() * perAgentInterval;
  let n = 0;
  while (Date.now() < deadline) {
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (Date.now() >= deadline) break;
    next += perAgentInterval;
    n++;
    started++;
    const isStore = n % 3 === 0;
    const t0 = process.hrtime.bigint();
    try {
      if (isStore) {
        const text = n % 2 === 0 ? shared[(n * 7 + index) % shared.length] : texts[cursor++ % texts.length];
        const res = await brain.memory.store(text, { agent: index });
        stored++;
        if (res.dedup.action === "merged") merged++;
      } else {
        const words = texts[(n * 13 + index * 101) % texts.length].split(/\s+/);
        await brain.memory.retrieve(words.slice(0, 4 + (n % 7)).join(" "), { topK: 5 });
      }
      latencies[isStore ? "store" : "recall"].push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (Date.now() <= deadline) doneInWindow++;
    } catch (err) {
      const kind = `${err.name}${err.statusCode ? ` ${err.statusCode}` : ""}${err.code ? ` ${err.code}` : ""}`;
      errors.set(kind, (errors.get(kind) ?? 0) + 1);
    }
  }
  await brain.close();
}

// CPU time (all threads) of every serve process and of this one (the agents), around the measured window: on a shared
// machine wall-clock rates measure the neighbours too, CPU time per request does not (much).
const cpuBefore = {
  services: services.map((s) => cpuMsOf(s.pid)),
  agents: process.cpuUsage(),
  database: pg ? cpuMsOf(pg.pid, { children: true }) : 0,
};
const t0 = Date.now();
await Promise.all(Array.from({ length: agents }, (_, i) => agent(i)));
const elapsed = (Date.now() - t0) / 1000;
const windowSeconds = (deadline - t0) / 1000;
const serviceCpuMs = services.reduce((sum, s, i) => sum + cpuMsOf(s.pid) - cpuBefore.services[i], 0);
const agentsCpu = process.cpuUsage(cpuBefore.agents);
const databaseCpuMs = pg ? cpuMsOf(pg.pid, { children: true }) - cpuBefore.database : 0;
const loadAfter = loadavg()[0];

// Duplicate memories, read from the store: identical texts kept more than once.
const require = createRequire(join(root, "package.json"));
const duplicateSql =
  "select count(*) as texts, coalesce(sum(n - 1), 0) as extra from (select count(*) as n from memories where workspace_id = $1 group by text) t";
let counts;
if (usePostgres) {
  const pgDriver = require("pg");
  const client = new pgDriver.Client({ connectionString: databaseUrl });
  await client.connect();
  counts = (
    await client.query(
      duplicateSql.replace("count(*) as texts", "count(*)::int as texts").replace("sum(n - 1), 0)", "sum(n - 1), 0)::int"),
      [first.workspaceId],
    )
  ).rows[0];
  await client.end();
} else {
  const Database = require("better-sqlite3");
  const db = new Database(first.dbPath, { readonly: true });
  counts = db.prepare(duplicateSql.replace("$1", "?")).get(first.workspaceId);
  db.close();
}
for (const s of services) await s.stop();
await pg?.stop();

console.log(
  `warm-up (3 stores and 3 recalls per process, not counted): store ${warmup.store.map((v) => v.toFixed(0)).join("/")} ms, recall ${warmup.recall.map((v) => v.toFixed(0)).join("/")} ms`,
);
const done = latencies.store.length + latencies.recall.length;
const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
console.log(`fleet: ${agents} agents, ${seconds} s, ${processes} service process(es) over ${usePostgres ? "PostgreSQL" : "SQLite"}`);
console.log(`machine: ${machine()}; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`);
console.log(
  `rate limit ${limitRps} req/s (burst ${burst}); offered ${offeredRps.toFixed(0)} req/s (${((100 * offeredRps) / limitRps).toFixed(0)}% of it); ` +
    `sent ${(started / windowSeconds).toFixed(1)} req/s in the window (${((100 * started) / windowSeconds / limitRps).toFixed(0)}% of the limit), ` +
    `completed in it ${(doneInWindow / windowSeconds).toFixed(1)} req/s (${doneInWindow} of ${started} sent, ${windowSeconds.toFixed(2)} s); counting the drain (${(elapsed - windowSeconds).toFixed(2)} s after the window) ` +
    `completed ${(done / elapsed).toFixed(1)} req/s`,
);
const twoCores = 2 * model.textsPerSecond;
// The service's processes and the database they use share the machine's cores; the agents would be elsewhere.
const serviceMsPerRequest = (serviceCpuMs + databaseCpuMs) / done;
console.log(
  `model alone, one core (batches of ${DEFAULT_BATCH_TEXTS}, the fleet's mix; load ${modelLoad.toFixed(1)}): ${model.textsPerSecond.toFixed(0)} texts/s ` +
    `(${model.msPerText.toFixed(2)} ms per text; ${model.cpuMsPerText.toFixed(2)} ms of CPU); the fleet completed ` +
    `${((100 * done) / elapsed / twoCores).toFixed(0)}% of two cores of model time (${twoCores.toFixed(0)} texts/s)`,
);
console.log(
  `CPU per completed request: service ${(serviceCpuMs / done).toFixed(2)} ms (all its threads)` +
    `${pg ? ` + PostgreSQL ${(databaseCpuMs / done).toFixed(2)} ms` : ""}, agents ${((agentsCpu.user + agentsCpu.system) / 1000 / done).toFixed(2)} ms; ` +
    `two idle cores would serve ${(2000 / serviceMsPerRequest).toFixed(0)} req/s, ${((100 * model.cpuMsPerText) / serviceMsPerRequest).toFixed(0)}% of ` +
    `two cores of model time (${(2000 / model.cpuMsPerText).toFixed(0)} texts/s by CPU time)`,
);
for (const [op, v] of Object.entries(latencies)) {
  console.log(
    `${op.padEnd(6)} ${String(v.length).padStart(6)} calls  p50 ${ms(percentile(v, 50))}  p90 ${ms(percentile(v, 90))}  p99 ${ms(percentile(v, 99))}  max ${ms(Math.max(...v))}`,
  );
}
console.log(`stores acknowledged ${stored}, of which merged by dedup ${merged}; memories kept ${counts.texts + counts.extra}`);
console.log(`errors: ${errorCount}${errorCount ? " (" + [...errors].map(([k, n]) => `${k}: ${n}`).join(", ") + ")" : ""}`);
console.log(`duplicate memories (an identical text kept more than once): ${counts.extra}`);
