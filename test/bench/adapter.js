#!/usr/bin/env node
// Adapter per-call overhead over a direct HTTP call to the same service, and the adapter's resident set after
// 1,000 calls. Goals: overhead median <= 0.5 ms; RSS <= 60 MB after 1,000 calls.
// Usage: node test/bench/adapter.js [calls=1000]
import { readFileSync } from "node:fs";
import { request, Agent } from "undici";
import { StdioSession, bin, machine, percentile, ms } from "./lib.js";
import { startService } from "./service-proc.js";

const calls = Number(process.argv[2] ?? 1000);
const service = await startService({ env: { BRAIN_RATE_LIMIT_RPS: "100000", BRAIN_RATE_LIMIT_BURST: "100000" } });
const agent = new Agent({ keepAliveTimeout: 30_000 });
const headers = { authorization: `Bearer ${service.apiKey}`, "content-type": "application/json" };

async function direct(path, body) {
  const started = process.hrtime.bigint();
  const res = await request(service.url + path, {
    method: body ? "POST" : "GET",
    headers,
    body: body ? JSON.stringify(body) : undefined,
    dispatcher: agent,
  });
  await res.body.json();
  if (res.statusCode !== 200) throw new Error(`direct call answered ${res.statusCode}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const adapter = new StdioSession(process.execPath, [bin], {
  PATH: process.env.PATH,
  BRAIN_API_KEY: service.apiKey,
  BRAIN_BASE_URL: service.url,
  BRAIN_LOG: "error",
});
await adapter.initialize();
const { result } = await adapter.request("tools/list");
const tool = (suffix) => result.tools.find((t) => t.name.endsWith(suffix)).name;

async function viaAdapter(name, args) {
  const started = process.hrtime.bigint();
  const res = await adapter.request("tools/call", { name, arguments: args });
  if (res.error || res.result?.isError) throw new Error(`adapter call failed: ${JSON.stringify(res)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

for (let i = 0; i < 20; i++) {
  await direct("/v1/memory/store", {
    text: `Warm-up memory number ${i} about the ${["red", "blue", "green", "amber"][i % 4]} deployment lane ${i * 7}.`,
  });
}

const rows = [];
for (const [label, path, body, name, args] of [
  ["status", "/v1/status", null, tool("status"), {}],
  [
    "recall",
    "/v1/memory/retrieve",
    { query: "which deployment lane is blue?", top_k: 5 },
    tool("recall"),
    { query: "which deployment lane is blue?", top_k: 5 },
  ],
]) {
  const d = [];
  const a = [];
  for (let i = 0; i < calls / 2; i++) {
    d.push(await direct(path, body));
    a.push(await viaAdapter(name, args));
  }
  rows.push({ label, d, a });
}

const rssKb = Number(readFileSync(`/proc/${adapter.child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);
console.log(`adapter per-call overhead over direct HTTP, ${calls / 2} alternating calls per operation`);
console.log(`machine: ${machine()}`);
for (const { label, d, a } of rows) {
  const overhead = percentile(a, 50) - percentile(d, 50);
  console.log(
    `${label.padEnd(7)} direct p50 ${ms(percentile(d, 50))} p99 ${ms(percentile(d, 99))} | adapter p50 ${ms(percentile(a, 50))} p99 ${ms(percentile(a, 99))} | overhead p50 ${ms(overhead)} (goal <= 0.5 ms: ${overhead <= 0.5 ? "met" : "NOT met"})`,
  );
}
console.log(`adapter RSS after ${calls} calls: ${(rssKb / 1024).toFixed(1)} MB (goal <= 60 MB: ${rssKb / 1024 <= 60 ? "met" : "NOT met"})`);
await adapter.close();
await agent.close();
await service.stop();
