#!/usr/bin/env node
// Adapter cold start: spawn to the `tools/list` answer, brain-mcp against the MCP reference memory server
// (@modelcontextprotocol/server-memory), measured alternately in one run. Goal (DESIGN.md): ratio <= 0.35.
// "brain-mcp, SDK alone" is the same bundle started without the recorded handshake (src/mcp/handshake.ts): the SDK
// and zod load before the first answer, as in the anchors' `server.connect(new StdioServerTransport())`.
// Usage: node test/bench/coldstart.js [runs=30]
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioSession, bin, machine, percentile, ms, root } from "./lib.js";

const runs = Number(process.argv[2] ?? 30);
const require = createRequire(join(root, "package.json"));
const reference = process.env.BRAIN_BENCH_REFERENCE ?? require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const scratch = mkdtempSync(join(tmpdir(), "coldstart-"));

const adapterEnv = { BRAIN_API_KEY: "svc_ws_" + "x".repeat(32), BRAIN_CONFIG: join(scratch, "none.json") };
// The bundle's entry with its recorded answers left out; written beside it so its chunk imports resolve.
const entry = join(root, "dist", "bundle", "brain-mcp.js");
const sdkAlone = join(root, "dist", "bundle", "bench-sdk-alone.js");
const withoutHandshake = readFileSync(entry, "utf8").replace(/\{handshake:\w+,?/, "{");
if (withoutHandshake === readFileSync(entry, "utf8")) throw new Error("could not find the handshake in the bundle's entry");
writeFileSync(sdkAlone, withoutHandshake);
const sdkAloneBin = join(scratch, "sdk-alone.mjs");
writeFileSync(
  sdkAloneBin,
  `const { main } = await import(${JSON.stringify(new URL(`file://${sdkAlone}`).href)});\nawait main(process.argv.slice(2));\n`,
);
process.on("exit", () => rmSync(sdkAlone, { force: true }));

const subjects = {
  "brain-mcp": { args: [bin], env: adapterEnv },
  "brain-mcp, SDK alone": { args: [sdkAloneBin], env: adapterEnv },
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

const samples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
for (const name of Object.keys(subjects)) if (subjects[name]) await once(subjects[name]); // warm the file cache
for (let i = 0; i < runs; i++) {
  for (const name of Object.keys(subjects)) if (subjects[name]) samples[name].push(await once(subjects[name]));
  samples["node -e ''"].push(await bareNode());
}

console.log(`cold start, spawn to tools/list answer, ${runs} alternating runs each`);
console.log(`machine: ${machine()}`);
for (const [name, values] of Object.entries(samples)) {
  console.log(`${name.padEnd(22)} p50 ${ms(percentile(values, 50))}  p90 ${ms(percentile(values, 90))}  min ${ms(Math.min(...values))}`);
}
for (const name of ["brain-mcp", "brain-mcp, SDK alone"]) {
  const ratio = percentile(samples[name], 50) / percentile(samples["server-memory"], 50);
  console.log(`ratio ${name} / server-memory (p50): ${ratio.toFixed(2)}  (goal <= 0.35: ${ratio <= 0.35 ? "met" : "NOT met"})`);
}
