// Loaded into serve by pg-path.js (NODE_OPTIONS=--import): counts the PostgreSQL round trips (each `Client.query`
// call is one message and one reply) made while each HTTP request is open, and its main-thread CPU
// (/proc/thread-self/schedstat); written as JSON lines to PG_PATH_OUT when each response ends. Statements sent
// after a response (the batched read bookkeeping) are counted as off-path, on the next line's `between`.
import http from "node:http";
import { appendFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isMainThread } from "node:worker_threads";
const out = process.env.PG_PATH_OUT;
if (isMainThread && out) {
  const pg = createRequire(process.env.PG_PATH_FROM + "/package.json")("pg");
  const cpu = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
  let open = null; // the statements of the one open request (requests are sequential here)
  let between = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config) {
    const sql = typeof config === "string" ? config : config?.text;
    if (typeof sql === "string") (open ?? between).push(sql.replace(/\s+/g, " ").slice(0, 70));
    return query.apply(this, arguments);
  };
  const emit = http.Server.prototype.emit;
  const K = Symbol("t");
  http.Server.prototype.emit = function (ev, req, res) {
    if (ev === "request") {
      open = [];
      res[K] = { at: performance.now(), cpu: cpu(), url: req.url, between };
      between = [];
    }
    return emit.apply(this, arguments);
  };
  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function () {
    const r = end.apply(this, arguments);
    const t = this[K];
    if (t) {
      const row = { url: t.url, status: this.statusCode, ms: performance.now() - t.at, cpu: cpu() - t.cpu, sql: open, before: t.between };
      open = null;
      appendFileSync(out, JSON.stringify(row) + "\n");
    }
    return r;
  };
}
