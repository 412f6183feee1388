// Loaded into serve by tail.js (NODE_OPTIONS=--import): for each request, the wall time from the request event to
// res.end, the main thread's CPU over it, the garbage collector's pauses inside it (perf_hooks' GC entries), and the
// model worker's round trips it waited on (postMessage of an embed call to its reply: queueing, the model run, the
// wake-ups). Written as JSON to TAIL_OUT on SIGUSR2 (then cleared) (nothing of the requests' bodies: sizes and times only).
import http from "node:http";
import { closeSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PerformanceObserver, monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";

const cpu = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
const K = Symbol("tail");
const rows = [];
const gcs = [];
const embeds = [];
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push([e.startTime, e.duration, e.detail?.kind ?? e.kind]);
}).observe({ entryTypes: ["gc"] });

const post = Worker.prototype.postMessage;
const sent = new Map();
Worker.prototype.postMessage = function (message, transfer) {
  if (message?.kind === "embed") sent.set(message.call, [performance.now(), message.texts.length, message.purpose]);
  if (!this[K]) {
    this[K] = true;
    this.on("message", (reply) => {
      const s = sent.get(reply?.call);
      if (!s) return;
      sent.delete(reply.call);
      embeds.push([s[0], performance.now(), s[1], s[2]]);
    });
  }
  return post.call(this, message, transfer);
};

// SQLite (branch `sqltail`): the main thread's time inside better-sqlite3's calls, and each COMMIT's time, with whether
// the WAL was checkpointed inside it (the -shm file's nBackfill, WalCkptInfo at byte 96, moved on during the commit; with
// a checkpointer in another thread, that may be its work landing meanwhile) or started over (mxFrame, byte 16, fell).
const sqlCpu = []; // [start, the main thread's CPU inside the call]
const sqls = []; // [start, end, kind (0 statement, 1 commit, 2 commit with a checkpoint, 3 one that restarted the WAL), walFramesBefore]
try {
  const Database = createRequire(process.argv[1])("better-sqlite3");
  const shmOf = new WeakMap();
  const walState = (db) => {
    let fd = shmOf.get(db);
    if (fd === undefined) {
      try {
        fd = db.name && db.name !== ":memory:" ? openSync(`${db.name}-shm`, "r") : null;
      } catch {
        fd = null;
      }
      shmOf.set(db, fd);
    }
    if (fd === null) return [0, 0];
    const b = Buffer.alloc(100);
    readSync(fd, b, 0, 100, 0);
    return [b.readUInt32LE(16), b.readUInt32LE(96)]; // mxFrame, nBackfill
  };
  const timed = (proto, name, commitOf) => {
    const f = proto[name];
    proto[name] = function (...args) {
      const commit = commitOf(this, args);
      const db = commit ? (this.database ?? this) : null;
      const before = commit ? walState(db) : null;
      const s = performance.now();
      const c = cpu();
      try {
        return f.apply(this, args);
      } finally {
        const e = performance.now();
        sqlCpu.push([s, cpu() - c]);
        let kind = 0;
        if (commit) {
          // 2: this commit ran a checkpoint (nBackfill moved on, the WAL not started over); 3: it started the WAL over
          const after = walState(db);
          kind = after[0] < before[0] ? 3 : after[1] > before[1] ? 2 : 1;
        }
        sqls.push([s, e, kind, before?.[0] ?? 0]);
      }
    };
  };
  const isCommit = (sql) => typeof sql === "string" && /^\s*(COMMIT|END)\b/i.test(sql);
  timed(Database.prototype, "exec", (_db, [sql]) => isCommit(sql));
  timed(Database.prototype, "pragma", () => false);
  const prepare = Database.prototype.prepare;
  let patched = false;
  Database.prototype.prepare = function (...args) {
    const stmt = prepare.apply(this, args);
    if (!patched) {
      patched = true;
      const proto = Object.getPrototypeOf(stmt);
      for (const m of ["run", "get", "all"]) timed(proto, m, (st) => isCommit(st.source));
    }
    return stmt;
  };
} catch {
  // not a SQLite build, or no better-sqlite3 here
}

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (ev, ...args) {
  if (ev === "request") args[1][K] = [performance.now(), cpu(), args[0].url];
  return emit.call(this, ev, ...args);
};
const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function (...args) {
  const r = end.apply(this, args);
  const t = this[K];
  if (t) rows.push({ url: t[2], start: t[0], end: performance.now(), cpu: cpu() - t[1] });
  return r;
};

process.on("SIGUSR2", () => {
  for (const row of rows) {
    row.gcMs = gcs
      .filter(([s, d]) => s < row.end && s + d > row.start)
      .reduce((a, [s, d]) => a + Math.min(row.end, s + d) - Math.max(row.start, s), 0);
    const mine = embeds.filter(([s, e]) => s >= row.start && e <= row.end);
    row.embedMs = mine.reduce((a, [s, e]) => a + e - s, 0);
    row.embedTexts = mine.reduce((a, x) => a + x[2], 0);
    // Calls running when the request came in (another request's batch it queued behind)
    row.busyAtStart = embeds.some(([s, e]) => s < row.start && e > row.start);
    const inRow = sqls.filter(([s, e]) => s >= row.start && e <= row.end);
    row.sqlMs = inRow.reduce((a, [s, e]) => a + e - s, 0);
    row.sqlCpuMs = sqlCpu.filter(([s]) => s >= row.start && s <= row.end).reduce((a, [, c]) => a + c, 0);
    row.commitMs = inRow.filter((x) => x[2] > 0).reduce((a, [s, e]) => a + e - s, 0);
    row.checkpointMs = inRow.filter((x) => x[2] === 2).reduce((a, [s, e]) => a + e - s, 0);
  }
  if (process.env.TAIL_OUT)
    writeFileSync(
      process.env.TAIL_OUT,
      JSON.stringify({
        rows,
        gcs,
        commits: sqls.filter((x) => x[2] > 0).map(([s, e, kind, frames]) => [e - s, kind, frames]),
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
        embeds: embeds.length,
      }),
    );
  rows.length = 0;
  gcs.length = 0;
  embeds.length = 0;
  sqls.length = 0;
  sqlCpu.length = 0;
  loop.reset();
});
