// Loaded into serve by tail.js (NODE_OPTIONS=--import): for each request, the wall time from the request event to
// res.end, the main thread's CPU over it, the garbage collector's pauses inside it (perf_hooks' GC entries), and the
// model worker's round trips it waited on (postMessage of an embed call to its reply: queueing, the model run, the
// wake-ups). Written as JSON to TAIL_OUT on SIGUSR2 (then cleared) (nothing of the requests' bodies: sizes and times only).
import http from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
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
  }
  if (process.env.TAIL_OUT)
    writeFileSync(
      process.env.TAIL_OUT,
      JSON.stringify({ rows, gcs, loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6, embeds: embeds.length }),
    );
  rows.length = 0;
  gcs.length = 0;
  embeds.length = 0;
  loop.reset();
});
