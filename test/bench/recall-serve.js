// Sequential recalls against a checkout's `bin/brain-mcp.js serve` (300 stores, 30 warm-up recalls, then N=300 timed):
// client p50 and CPU per recall of serve's main thread and busiest other thread (/proc). HOOK=1 also loads
// recall-serve-hook.js into serve: each retrieve's in-server wall time and main-thread CPU (/proc/thread-self/schedstat)
// from the request to res.end, printed with ERR=1. LOG sets BRAIN_LOG (default info, as installed.js).
// HOOKFILE=FILE loads another hook instead (phase-hook.js: before the model, its round trip, after it; HOOKPATH=store
// for the stores). STRACE=FILE counts the timed recalls' system calls (strace -f -c) into FILE; KEEP=1 keeps the store's home folder.
// Usage: [N=300] [HOOK=1 ERR=1] [STRACE=FILE] [KEEP=1] node test/bench/recall-serve.js CHECKOUT [CPU_PROFILE_DIR]
import { spawn } from "node:child_process";
import { threadCpu, workloadFact as fact, workloadQuery as query } from "./lib.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const dir = process.argv[2];
const prof = process.argv[3];
const { Brain } = await import(join(dir, "dist/client/brain.js"));
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const home = mkdtempSync(join(tmpdir(), "rb-"));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_DATA_HOME: join(home, ".local", "share"),
  BRAIN_MODEL_RUNTIME: "native",
  BRAIN_LOG: process.env.LOG ?? "info",
  ...(process.env.HOOKPATH ? { HOOKPATH: process.env.HOOKPATH } : {}),
  ...(process.env.HOOK
    ? { NODE_OPTIONS: `--import ${process.env.HOOKFILE ?? new URL("./recall-serve-hook.js", import.meta.url).pathname}` }
    : {}),
};
const args = [...(prof ? ["--cpu-prof", "--cpu-prof-dir", prof] : []), join(dir, "bin/brain-mcp.js"), "serve", "--port", "0"];
const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
let out = "",
  err = "";
child.stdout.on("data", (d) => (out += d));
child.stderr.on("data", (d) => (err += d));
const t0 = Date.now();
while (!/listening on/.test(out)) {
  if (child.exitCode !== null || Date.now() - t0 > 120000) throw new Error(out + err);
  await new Promise((r) => setTimeout(r, 100));
}
const url = /listening on (http:\/\/[0-9.:]+)/.exec(out)[1];
const key = /svc_ws_[A-Za-z0-9]+/.exec(out)[0];
const brain = new Brain({ apiKey: key, baseURL: url, timeout: 60000 });
for (let i = 0; i < 300; i++) await brain.memory.store(fact(i), { source: "bench" });
for (let i = 0; i < 30; i++) await brain.memory.retrieve(query(i), { topK: 5 });
const N = Number(process.env.N ?? 300);
const ms = [];
// STRACE=FILE: the timed recalls' syscalls of every serve thread, counted (strace -f -c), into FILE.
const tracer = process.env.STRACE
  ? spawn("strace", ["-f", "-c", "-o", process.env.STRACE, "-p", String(child.pid)], { stdio: "ignore" })
  : null;
if (tracer) await new Promise((r) => setTimeout(r, 1000));
const before = threadCpu(child.pid);
for (let i = 0; i < N; i++) {
  const t = performance.now();
  await brain.memory.retrieve(query(i), { topK: 5 });
  ms.push(performance.now() - t);
}
const spent = [...threadCpu(child.pid)].map(([tid, v]) => [tid, v - (before.get(tid) ?? 0)]);
const main = spent.find(([t]) => t === String(child.pid))[1] / N;
const worker = Math.max(...spent.filter(([t]) => t !== String(child.pid)).map(([, v]) => v)) / N;
if (tracer) {
  tracer.kill("SIGINT");
  await new Promise((r) => tracer.once("exit", r));
}
console.log(
  `${dir}: recall p50 ${p50(ms).toFixed(2)} ms; CPU/recall main ${main.toFixed(2)} worker ${worker.toFixed(2)}; load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`,
);
child.kill("SIGINT");
await new Promise((r) => child.once("exit", r));
if (process.env.ERR)
  console.log(
    err
      .split("\n")
      .filter((l) => l.startsWith("HOOK"))
      .join("\n"),
  );
if (process.env.KEEP) console.log(`kept ${home}`);
else rmSync(home, { recursive: true, force: true });
