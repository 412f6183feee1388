// Loaded into serve by recall-serve.js (NODE_OPTIONS=--import): per retrieve, wall time and main-thread CPU from the
// request event to res.end; the last 300 summarised on SIGINT.
import http from "node:http";
import { readFileSync } from "node:fs";
const cpu = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
const emit = http.Server.prototype.emit;
const K = Symbol("t");
http.Server.prototype.emit = function (ev, req, res) {
  if (ev === "request") res[K] = [performance.now(), cpu(), req.url];
  return emit.apply(this, arguments);
};
const end = http.ServerResponse.prototype.end;
const rows = [];
http.ServerResponse.prototype.end = function () {
  const r = end.apply(this, arguments);
  const t = this[K];
  if (t?.[2].includes("retrieve")) rows.push([performance.now() - t[0], cpu() - t[1]]);
  return r;
};
process.on("SIGINT", () => {
  const s = rows.slice(-300);
  const med = (i) => s.map((x) => x[i]).sort((a, b) => a - b)[Math.floor(s.length / 2)];
  const mean = (i) => s.reduce((a, x) => a + x[i], 0) / s.length;
  process.stderr.write(
    `HOOK last ${s.length} retrieves: in-server wall p50 ${med(0).toFixed(3)} ms; main-thread CPU request->end p50 ${med(1).toFixed(3)} mean ${mean(1).toFixed(3)} ms\n`,
  );
});
