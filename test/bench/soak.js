#!/usr/bin/env node
// Soak: a fleet of agents sharing one workspace key mixes stores (1 in 3) and recalls of varied real text against
// one real `brain-mcp serve` for a bounded time at a fixed offered rate (by default 80 % of a capacity measured
// first), and every window prints and records: requests, errors, p50/p99 of that window, the service's resident set
// and open file descriptors (/proc). The end compares the first and last windows (drift) and checks every
// acknowledged store is found in the store afterwards.
// Usage: npm run build && node test/bench/soak.js [--minutes 10] [--store sqlite|postgres] [--rate R | --capacity C]
//          [--share 0.8] [--agents 32] [--window 30] [--record FILE.json]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Brain } from "../../dist/index.js";
import { corpus, shuffled } from "./corpus.js";
import { machine, percentile, root } from "./lib.js";
import { startPostgres } from "./pg.js";
import { startService } from "./service-proc.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    store: { type: "string", default: "sqlite" },
    rate: { type: "string" },
    capacity: { type: "string" },
    share: { type: "string", default: "0.8" },
    agents: { type: "string", default: "32" },
    window: { type: "string", default: "30" },
    "capacity-seconds": { type: "string", default: "20" },
    record: { type: "string" },
  },
});
if (!["sqlite", "postgres"].includes(values.store)) throw new Error("--store is sqlite or postgres");
const minutes = Number(values.minutes);
const agents = Number(values.agents);
const windowMs = Number(values.window) * 1000;
const record = values.record ?? join(tmpdir(), `brain-soak-${values.store}-${Date.now()}.json`);

const pg = values.store === "postgres" ? await startPostgres() : null;
const service = await startService({ databaseUrl: pg?.url });
const { passages, pieces } = corpus();
const texts = shuffled([...passages, ...pieces], 11);
let cursor = 0;
const nextText = () => texts[cursor++ % texts.length];
// Texts several agents store again and again: dedup must keep each one memory.
const repeated = texts.slice(-100);
const acknowledged = new Map(); // memory_id -> a text stored into it

/** One request of the mix: every third a store (a new text, or one of the repeated ones), else a recall. */
async function oneRequest(brain, n, agentIndex) {
  if (n % 3 === 0) {
    const text = n % 2 === 0 ? repeated[(n + agentIndex) % repeated.length] : nextText();
    const res = await brain.memory.store(text, { agent: agentIndex });
    acknowledged.set(res.memory_id, text);
  } else {
    const words = texts[(n * 13 + agentIndex * 101) % texts.length].split(/\s+/);
    await brain.memory.retrieve(words.slice(0, 4 + (n % 7)).join(" "), { topK: 5 });
  }
}

// No retries: every failed attempt is an error the soak reports.
const brains = Array.from({ length: agents }, () => new Brain({ apiKey: service.apiKey, baseURL: service.url, maxRetries: 0 }));
for (let i = 0; i < 3; i++) await oneRequest(brains[0], i * 3, 0).then(() => oneRequest(brains[0], i * 3 + 1, 0)); // warm-up

/** Requests per second the service completes with every agent sending back to back. */
async function measureCapacity(seconds) {
  let done = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    brains.map(async (brain, i) => {
      for (let n = 0; Date.now() < until; n++) {
        await oneRequest(brain, n, i).then(
          () => done++,
          () => undefined,
        );
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

let capacity = values.capacity ? Number(values.capacity) : undefined;
if (values.rate === undefined && capacity === undefined) capacity = await measureCapacity(Number(values["capacity-seconds"]));
const rate = values.rate ? Number(values.rate) : capacity * Number(values.share);
const interval = (1000 * agents) / rate;

const proc = {
  rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.pid}/status`, "utf8"))[1]) / 1024,
  fds: () => readdirSync(`/proc/${service.pid}/fd`).length,
};

let window = { latencies: [], errors: 0, sent: 0 };
const windows = [];
const errorKinds = new Map();
const startedAt = Date.now();
const deadline = startedAt + minutes * 60_000;
const header =
  `soak: ${values.store}, ${minutes} min, ${agents} agents on one key, offered ${rate.toFixed(1)} req/s` +
  (capacity !== undefined ? ` (${((100 * rate) / capacity).toFixed(0)} % of a measured capacity of ${capacity.toFixed(1)} req/s)` : "");
console.log(header);
console.log(`machine: ${machine()}`);
console.log(" elapsed  requests  errors   p50 ms   p99 ms   rss MB  fds  load");

/** Ends the current window; `full` is false for the short remainder at the end, which drift does not compare. */
function closeWindow(full = true) {
  const w = window;
  window = { latencies: [], errors: 0, sent: 0 };
  const row = {
    elapsed_s: Math.round((Date.now() - startedAt) / 1000),
    requests: w.latencies.length + w.errors,
    sent: w.sent,
    errors: w.errors,
    p50_ms: percentile(w.latencies, 50),
    p99_ms: percentile(w.latencies, 99),
    rss_mb: proc.rssMb(),
    fds: proc.fds(),
    load1: loadavg()[0],
    full,
  };
  windows.push(row);
  const f = (v, n = 1) => v.toFixed(n);
  console.log(
    `${String(row.elapsed_s).padStart(7)}s ${String(row.requests).padStart(9)} ${String(row.errors).padStart(7)} ` +
      `${f(row.p50_ms).padStart(8)} ${f(row.p99_ms).padStart(8)} ${f(row.rss_mb).padStart(8)} ${String(row.fds).padStart(4)} ${f(row.load1).padStart(5)}${full ? "" : "  (remainder)"}`,
  );
}

const baseline = { rss_mb: proc.rssMb(), fds: proc.fds() };
const ticker = setInterval(closeWindow, windowMs);

await Promise.all(
  brains.map(async (brain, i) => {
    let next = Date.now() + Math.random() * interval;
    for (let n = 0; ; n++) {
      const wait = next - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (Date.now() >= deadline) break;
      next += interval;
      window.sent++;
      const t0 = performance.now();
      try {
        await oneRequest(brain, n, i);
        window.latencies.push(performance.now() - t0);
      } catch (err) {
        window.errors++;
        const kind = `${err.name}${err.statusCode ? ` ${err.statusCode}` : ""}${err.code ? ` ${err.code}` : ""}`;
        errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
      }
    }
  }),
);
clearInterval(ticker);
if (window.latencies.length + window.errors > 0) closeWindow(false);
for (const brain of brains) await brain.close();

// Every acknowledged store is in the store afterwards (the surviving memory of a merge included).
const require = createRequire(join(root, "package.json"));
let found;
if (pg) {
  const client = new (require("pg").Client)({ connectionString: pg.url });
  await client.connect();
  found = new Set(
    (await client.query("SELECT id FROM memories WHERE workspace_id = $1", [service.workspaceId])).rows.map((r) => Number(r.id)),
  );
  await client.end();
} else {
  const db = new (require("better-sqlite3"))(service.dbPath, { readonly: true });
  found = new Set(
    db
      .prepare("SELECT id FROM memories WHERE workspace_id = ?")
      .all(service.workspaceId)
      .map((r) => Number(r.id)),
  );
  db.close();
}
const missing = [...acknowledged.keys()].filter((id) => !found.has(id));
await service.stop();
await pg?.stop();

const total = windows.reduce((a, w) => ({ requests: a.requests + w.requests, errors: a.errors + w.errors }), { requests: 0, errors: 0 });
const fullWindows = windows.filter((w) => w.full);
const first = fullWindows[0] ?? windows[0];
const last = fullWindows.at(-1) ?? windows.at(-1);
const summary = {
  store: values.store,
  minutes,
  agents,
  offered_rps: rate,
  capacity_rps: capacity ?? null,
  machine: machine(),
  requests: total.requests,
  errors: total.errors,
  error_kinds: Object.fromEntries(errorKinds),
  p99_first_full_window_ms: first.p99_ms,
  p99_last_full_window_ms: last.p99_ms,
  rss_mb: {
    before: baseline.rss_mb,
    first_window: windows[0].rss_mb,
    end: windows.at(-1).rss_mb,
    max: Math.max(...windows.map((w) => w.rss_mb)),
  },
  fds: { before: baseline.fds, end: windows.at(-1).fds, max: Math.max(...windows.map((w) => w.fds)) },
  memories_acknowledged: acknowledged.size,
  memories_missing: missing.length,
  windows,
};
writeFileSync(record, `${JSON.stringify(summary, null, 2)}\n`);
console.log(
  `total: ${total.requests} requests, ${total.errors} errors${errorKinds.size ? ` (${[...errorKinds].map(([k, n]) => `${k}: ${n}`).join(", ")})` : ""}; ` +
    `p99 first full window ${first.p99_ms.toFixed(1)} ms, last ${last.p99_ms.toFixed(1)} ms; ` +
    `rss ${baseline.rss_mb.toFixed(1)} MB before, ${summary.rss_mb.end.toFixed(1)} MB at the end (max ${summary.rss_mb.max.toFixed(1)}); ` +
    `fds ${baseline.fds} before, ${summary.fds.end} at the end (max ${summary.fds.max})`,
);
console.log(`memories acknowledged ${acknowledged.size}, missing from the store afterwards ${missing.length}`);
console.log(`recorded: ${record}`);
if (missing.length > 0) process.exitCode = 1;
