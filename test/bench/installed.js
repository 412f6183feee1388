// The packages as a user installs them (issue 27): in a project where the packed brain-mcp, brain-mcp-service and the
// host's @brain-mcp/onnxruntime-<target> tarballs were installed (`npm pack`, `node scripts/package/service.js --pack
// DIR`, `node scripts/onnxruntime/build-platform-packages.js --target host --pack DIR`, then `npm install ./DIR/*.tgz`
// in an empty project), for each model runtime in turn: `serve`'s resident set after start and after 600 stores + 200 recalls
// (sequential, through the installed client), recall p50 beside the model's own in-process time for the same queries
// (onnxruntime-node, one thread: the floor), and `brain-mcp --embedded`'s resident set after 60 remembers + 30
// recalls over MCP stdio. Each figure carries the 1-minute load average when it was taken.
// Usage: node test/bench/installed.js PROJECT_DIR [native,wasm]
import { spawn } from "node:child_process";
import { threadCpu, workloadFact as fact, workloadQuery as query } from "./lib.js";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const project = process.argv[2];
const runtimes = (process.argv[3] ?? "native,wasm").split(",");
if (!project) throw new Error("usage: node test/bench/installed.js PROJECT_DIR [native,wasm]");
const modules = join(project, "node_modules");
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Resident set of a process and its descendants, MB (Linux /proc). */
function treeRss(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {}
  }
  let kb = 0;
  const visit = (p) => {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {}
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return Math.round(kb / 1024);
}

function isolatedEnv(runtime) {
  const home = mkdtempSync(join(tmpdir(), "brain-bench-installed-"));
  return {
    home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      BRAIN_MODEL_RUNTIME: runtime,
      BRAIN_LOG: "info",
      // passed on, to compare one model worker with the default
      ...(process.env.BRAIN_EMBED_WORKERS ? { BRAIN_EMBED_WORKERS: process.env.BRAIN_EMBED_WORKERS } : {}),
    },
  };
}

async function serve(runtime) {
  const { home, env } = isolatedEnv(runtime);
  const bin = join(modules, "brain-mcp-service", "bin", "brain-mcp-service.js");
  const child = spawn(process.execPath, [bin, "serve", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const started = Date.now();
  while (!/listening on/.test(out)) {
    if (child.exitCode !== null || Date.now() - started > 300_000) throw new Error(`serve did not start: ${out}${err}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const listenMs = Date.now() - started;
  const url = /listening on (http:\/\/[0-9.:]+)/.exec(out)[1];
  const key = /svc_ws_[A-Za-z0-9]+/.exec(out)[0];
  const chosen = err.split("\n").find((l) => l.includes('"model runtime"'));
  await new Promise((r) => setTimeout(r, 3000));
  const atStart = { rss: treeRss(child.pid), load: load() };
  const requireHere = createRequire(join(project, "package.json"));
  const { Brain } = await import(pathToFileURL(requireHere.resolve("brain-mcp")).href);
  const brain = new Brain({ apiKey: key, baseURL: url, timeout: 60_000 });
  const storeMs = [];
  for (let i = 0; i < 600; i++) {
    const t = performance.now();
    await brain.memory.store(fact(i), { source: "bench" });
    storeMs.push(performance.now() - t);
  }
  const recallMs = [];
  const cpuBefore = threadCpu(child.pid);
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await brain.memory.retrieve(query(i), { topK: 5 });
    recallMs.push(performance.now() - t);
  }
  // CPU per recall on the main thread and on the busiest other thread (the model worker): steadier than wall time under load
  const spent = [...threadCpu(child.pid)].map(([tid, ms]) => [tid, ms - (cpuBefore.get(tid) ?? 0)]);
  const others = spent.filter(([tid]) => tid !== String(child.pid)).map(([, ms]) => ms);
  const recallCpu = { main: (spent.find(([tid]) => tid === String(child.pid))?.[1] ?? 0) / 200, worker: Math.max(0, ...others) / 200 };
  const after = { rss: treeRss(child.pid), load: load() };
  await brain.close?.();
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  rmSync(home, { recursive: true, force: true });
  return { chosen, listenMs, atStart, after, storeP50: p50(storeMs), recallP50: p50(recallMs), recallCpu };
}

async function embedded(runtime) {
  const { home, env } = isolatedEnv(runtime);
  const bin = join(modules, "brain-mcp", "bin", "brain-mcp.js");
  const child = spawn(process.execPath, [bin, "--embedded"], { env, stdio: ["pipe", "pipe", "ignore"] });
  const pending = new Map();
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    for (let n = buffered.indexOf("\n"); n >= 0; n = buffered.indexOf("\n")) {
      const line = buffered.slice(0, n).trim();
      buffered = buffered.slice(n + 1);
      if (line) {
        const message = JSON.parse(line);
        pending.get(message.id)?.(message);
      }
    }
  });
  let id = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const call = id++;
      pending.set(call, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: call, method, params })}\n`);
    });
  await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const names = (await request("tools/list", {})).result.tools.map((t) => t.name);
  const tool = (base) => names.find((n) => n.endsWith(base));
  const call = async (base, args) => {
    const answer = await request("tools/call", { name: tool(base), arguments: args });
    if (answer.error || answer.result?.isError) throw new Error(`${base} failed: ${JSON.stringify(answer)}`);
  };
  for (let i = 0; i < 60; i++) await call("remember", { text: fact(i) });
  const recallMs = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    await call("recall", { query: query(i) });
    recallMs.push(performance.now() - t);
  }
  const after = { rss: treeRss(child.pid), load: load() };
  child.stdin.end();
  await new Promise((r) => {
    const t = setTimeout(() => {
      child.kill("SIGKILL");
      r();
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(t);
      r();
    });
  });
  rmSync(home, { recursive: true, force: true });
  return { after, recallP50: p50(recallMs) };
}

/** The model alone for the same 200 queries: onnxruntime-node (the installed native package), one thread. */
async function modelFloor() {
  const requireHere = createRequire(join(modules, "brain-mcp-service", "package.json"));
  const target = `${process.platform}-${process.arch}${process.platform === "linux" ? "-gnu" : ""}`;
  const ort = requireHere(`@brain-mcp/onnxruntime-${target}`);
  const tokenizers = await import(pathToFileURL(requireHere.resolve("@huggingface/tokenizers")).href);
  const Tokenizer = tokenizers.Tokenizer ?? tokenizers.default.Tokenizer;
  const dir = join(modules, "brain-mcp-service", "dist", "service", "models", "embed", "data", "minilm");
  const json = (name) => JSON.parse(readFileSync(join(dir, name), "utf8"));
  const tokenizer = new Tokenizer(json("tokenizer.json"), json("tokenizer_config.json"));
  const session = await ort.InferenceSession.create(join(dir, "model.onnx"), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
  });
  const once = async (text) => {
    const ids = tokenizer.encode(text).ids.map(BigInt);
    const shape = [1, ids.length];
    await session.run({
      input_ids: new ort.Tensor("int64", BigInt64Array.from(ids), shape),
      attention_mask: new ort.Tensor("int64", new BigInt64Array(ids.length).fill(1n), shape),
      token_type_ids: new ort.Tensor("int64", new BigInt64Array(ids.length), shape),
    });
  };
  for (let i = 0; i < 10; i++) await once(query(i));
  const ms = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await once(query(i));
    ms.push(performance.now() - t);
  }
  return { p50: p50(ms), load: load() };
}

const floor = await modelFloor();
console.log(`model alone (onnxruntime-node, 1 thread, 200 queries): p50 ${floor.p50.toFixed(1)} ms (load ${floor.load})`);
for (const runtime of runtimes) {
  const s = await serve(runtime);
  console.log(`[${runtime}] serve: ${s.chosen ?? "(no model runtime line)"}`);
  console.log(
    `[${runtime}] serve: listening after ${s.listenMs} ms; RSS ${s.atStart.rss} MB after start (load ${s.atStart.load}), ${s.after.rss} MB after 600 stores + 200 recalls (load ${s.after.load}); store p50 ${s.storeP50.toFixed(1)} ms, recall p50 ${s.recallP50.toFixed(1)} ms = ${(s.recallP50 / floor.p50).toFixed(1)}x the model alone; CPU per recall: main thread ${s.recallCpu.main.toFixed(2)} ms, model worker ${s.recallCpu.worker.toFixed(2)} ms`,
  );
  const e = await embedded(runtime);
  console.log(
    `[${runtime}] --embedded: RSS ${e.after.rss} MB after 60 remembers + 30 recalls (load ${e.after.load}); recall p50 ${e.recallP50.toFixed(1)} ms over MCP`,
  );
}
