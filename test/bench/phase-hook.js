// Loaded into serve by recall-serve.js (HOOK=1 HOOKFILE=test/bench/phase-hook.js): each request of one kind (HOOKPATH,
// default "retrieve"; "store" for stores) split in three by wall time: from the request event to the first embed message
// posted to the model worker, from there to the worker's first reply, and from the reply to res.end. Sequential
// requests only (one in flight). Printed on SIGINT for the last 300 (stores: all but the first 30), as medians, and the
// slowest 3 % one by one; with HOOKOUT=FILE also appended to FILE at exit (for service.js, which stops serve with
// SIGTERM and keeps its stderr: `NODE_OPTIONS=--import=./test/bench/phase-hook.js HOOKOUT=/tmp/phases node
// test/bench/service.js …`; the bench process loads it too and records nothing).
import http from "node:http";
import { appendFileSync } from "node:fs";
import { Worker } from "node:worker_threads";

const path = process.env.HOOKPATH ?? "retrieve";
const rows = [];
let current = null;
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === "request" && req.url.includes(path)) res.__phases = current = { start: performance.now() };
  return emit.apply(this, arguments);
};
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message) {
  if (current && message?.kind === "embed" && current.posted === undefined) current.posted = performance.now();
  return post.apply(this, arguments);
};
const workerEmit = Worker.prototype.emit;
Worker.prototype.emit = function (event) {
  if (current && event === "message" && current.posted !== undefined && current.replied === undefined) current.replied = performance.now();
  return workerEmit.apply(this, arguments);
};
const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function () {
  const r = end.apply(this, arguments);
  const p = this.__phases;
  if (p?.replied !== undefined) rows.push([p.posted - p.start, p.replied - p.posted, performance.now() - p.replied]);
  if (p === current) current = null;
  return r;
};
function summary() {
  const s = path === "retrieve" ? rows.slice(-300) : rows.slice(30);
  if (s.length === 0) return "";
  const med = (i) =>
    s
      .map((x) => x[i])
      .sort((a, b) => a - b)
      [Math.floor(s.length / 2)].toFixed(3);
  const total = (x) => x[0] + x[1] + x[2];
  const slowest = [...s].sort((a, b) => total(b) - total(a)).slice(0, Math.max(1, Math.round(s.length * 0.03)));
  return (
    `PHASES ${s.length} ${path}: request -> model asked p50 ${med(0)} ms; model's round trip ${med(1)} ms; reply -> res.end ${med(2)} ms\n` +
    `  slowest 3 % (before / model / after, ms): ${slowest.map((x) => x.map((v) => v.toFixed(1)).join(" / ")).join("; ")}\n`
  );
}
process.on("SIGINT", () => process.stderr.write(summary()));
if (process.env.HOOKOUT) {
  process.on("exit", () => {
    const text = summary();
    if (text) appendFileSync(process.env.HOOKOUT, text);
  });
}
