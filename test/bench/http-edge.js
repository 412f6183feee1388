// The HTTP edge alone: a checkout's startServer (its Hono app, guards, body read, access log at info) over a stand-in
// service whose retrieve answers a fixed five-memory answer at once; N sequential keep-alive retrieves from this process,
// the server's main-thread CPU per request from /proc/PID/task/PID/schedstat.
// Usage: node test/bench/http-edge.js CHECKOUT [N=3000]
import { join } from "node:path";
import { readFileSync } from "node:fs";
const dir = process.argv[2];
const N = Number(process.argv[3] ?? 3000);
if (process.argv[4] === "server") {
  const { startServer } = await import(join(dir, "dist/service/server.js"));
  const { createJsonLog } = await import(join(dir, "dist/service/process/json-log.js"));
  const answer = {
    memories: [1, 2, 3, 4, 5].map((i) => ({
      id: 128529732825101 + i,
      text: `Maria owns the billing service for team ${i} and reviews it every week.`,
      score: 0.9,
      similarity: 0.75,
      importance: 5,
      meta: { source: "bench", temporal: { type: "persistent", valid_until: null }, categories: ["work"] },
      expired: false,
      created_at: "2026-11-28T03:00:00Z",
      last_accessed_at: "2026-11-28T03:00:00Z",
      access_count: 3,
    })),
    count: 5,
  };
  const ws = { id: 1, name: "w", plan: "free", billing_cycle: "monthly", status: "active", created_at: "2025-01-01T00:00:00Z" };
  const service = {
    authenticate: async (key) => (key === "svc_ws_test" ? { workspace: ws, keyId: 1, keyPrefix: "svc_ws_te" } : null),
    consumeRateLimit: async () => ({ allowed: true, retryAfterSeconds: 0 }),
    retrieve: async () => answer,
    close: async () => {},
  };
  let log;
  log = createJsonLog(process.stderr, "info");
  const s = await startServer({ service, log, port: 0, host: "127.0.0.1" });
  process.stdout.write(`URL ${s.url}\n`);
} else {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, dir, String(N), "server"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const url = await new Promise((r) =>
    child.stdout.on("data", (d) => {
      const m = /URL (\S+)/.exec(String(d));
      if (m) r(m[1]);
    }),
  );
  const http = await import("node:http");
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ query: "Who owns the billing service for team 123?", top_k: 5 });
  const one = () =>
    new Promise((resolve, reject) => {
      const req = http.request(
        url + "/v1/memory/retrieve",
        {
          method: "POST",
          agent,
          headers: { authorization: "Bearer svc_ws_test", "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let n = 0;
          res.on("data", (d) => (n += d.length));
          res.on("end", () => (res.statusCode === 200 ? resolve(n) : reject(new Error(String(res.statusCode)))));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  const sched = () => Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  for (let i = 0; i < 500; i++) await one();
  const c0 = sched(),
    t0 = performance.now();
  for (let i = 0; i < N; i++) await one();
  const per = (sched() - c0) / N;
  console.log(
    `${dir}: server main-thread CPU per request ${per.toFixed(3)} ms; wall per request ${((performance.now() - t0) / N).toFixed(3)} ms; load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`,
  );
  child.kill();
  process.exit(0);
}
