#!/usr/bin/env node
// Adapter cold start: spawn to the `tools/list` answer, brain-mcp against the MCP reference memory server
// (@modelcontextprotocol/server-memory), measured alternately in one run. Goal: ratio <= 0.50.
// Usage: node test/bench/coldstart.js [runs=30]
import { createRequire } from "node:module";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioSession, bin, machine, percentile, ms, root } from "./lib.js";

const runs = Number(process.argv[2] ?? 30);
const require = createRequire(join(root, "package.json"));
const reference = process.env.BRAIN_BENCH_REFERENCE ?? require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const scratch = mkdtempSync(join(tmpdir(), "coldstart-"));

const subjects = {
  "brain-mcp": { args: [bin], env: { BRAIN_API_KEY: "svc_ws_" + "x".repeat(32), BRAIN_CONFIG: join(scratch, "none.json") } },
  "server-memory": { args: [reference], env: { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") } },
  "node -e ''": null,
};

async function once(subject) {
  const started = process.hrtime.bigint();
  const session = new StdioSession(process.execPath, subject.args, { PATH: process.env.PATH, ...subject.env });
  await session.initialize();
  const list = await session.request("tools/list");
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (!list.result?.tools?.length) throw new Error(`no tools listed: ${JSON.stringify(list)} ${session.stderr}`);
  await session.close();
  return elapsed;
}

async function bareNode() {
  const { spawnSync } = await import("node:child_process");
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, ["-e", ""]);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const samples = { "brain-mcp": [], "server-memory": [], "node -e ''": [] };
for (const name of Object.keys(subjects)) if (subjects[name]) await once(subjects[name]); // warm the file cache
for (let i = 0; i < runs; i++) {
  samples["brain-mcp"].push(await once(subjects["brain-mcp"]));
  samples["server-memory"].push(await once(subjects["server-memory"]));
  samples["node -e ''"].push(await bareNode());
}

console.log(`cold start, spawn to tools/list answer, ${runs} alternating runs each`);
console.log(`machine: ${machine()}`);
for (const [name, values] of Object.entries(samples)) {
  console.log(`${name.padEnd(14)} p50 ${ms(percentile(values, 50))}  p90 ${ms(percentile(values, 90))}  min ${ms(Math.min(...values))}`);
}
const ratio = percentile(samples["brain-mcp"], 50) / percentile(samples["server-memory"], 50);
console.log(`ratio brain-mcp / server-memory (p50): ${ratio.toFixed(2)}  (goal <= 0.50: ${ratio <= 0.5 ? "met" : "NOT met"})`);
