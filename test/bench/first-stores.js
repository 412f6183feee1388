#!/usr/bin/env node
// The first requests of a process (issue 27's "light and fast as installed": a Claude Desktop user's first remember is
// the first store of a fresh `--embedded`): a fresh `serve` per round, 2 s after it listens, then 8 stores and 3
// recalls one after another, each timed through HTTP. The builds are alternated round by round, so a baseline (an
// older checkout) runs in the same minutes; each line carries the 1-minute load.
// Usage: node test/bench/first-stores.js [--builds DIR,DIR] [--rounds 3]   (each DIR a built checkout; default: this one)
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isolatedHome, root } from "./lib.js";

const { values } = parseArgs({ options: { builds: { type: "string", default: root }, rounds: { type: "string", default: "3" } } });
const builds = values.builds.split(",").map((dir) => resolve(dir));
const FACTS = [
  "The team moved the standup to 9:30 on Tuesdays.",
  "Alice prefers tea over coffee in the mornings.",
  "Deploy the billing service before Friday's freeze.",
  "My dentist appointment is on March 3rd at 10am.",
  "The staging database runs PostgreSQL 15 on a 4-core VM.",
  "Ravi from Acme asked for a discount on the annual plan.",
  "We chose Rust for the ingest service because of memory use.",
  "The office wifi network is called Orchard-5G.",
];
const QUERIES = ["when is standup?", "what does Alice drink?", "which database does staging use?"];

async function round(dir) {
  const { Brain } = await import(join(dir, "dist/client/brain.js"));
  const { home, env } = isolatedHome("brain-first-", { BRAIN_MODEL_RUNTIME: process.env.BRAIN_MODEL_RUNTIME ?? "auto" });
  const child = spawn(process.execPath, [join(dir, "bin/brain-mcp.js"), "serve", "--port", "0"], {
    env,
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const started = Date.now();
  while (!/listening on/.test(out)) {
    if (child.exitCode !== null || Date.now() - started > 120_000) throw new Error(`serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /listening on (http:\/\/[0-9.:]+)/.exec(out)[1];
  const key = /svc_ws_[A-Za-z0-9]+/.exec(out)[0];
  await new Promise((r) => setTimeout(r, 2000));
  const brain = new Brain({ apiKey: key, baseURL: url, timeout: 60_000 });
  const timed = async (f) => {
    const t = performance.now();
    await f();
    return performance.now() - t;
  };
  const stores = [];
  for (const fact of FACTS) stores.push(await timed(() => brain.memory.store(fact, {})));
  const recalls = [];
  for (const query of QUERIES) recalls.push(await timed(() => brain.memory.retrieve(query, { topK: 5 })));
  await brain.close?.();
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  rmSync(home, { recursive: true, force: true });
  return { stores, recalls };
}

const f = (xs) => xs.map((x) => x.toFixed(1)).join(" ");
for (let i = 1; i <= Number(values.rounds); i++) {
  for (const dir of builds) {
    const load = loadavg()[0].toFixed(2);
    const { stores, recalls } = await round(dir);
    console.log(`${dir} round ${i} (load ${load}): stores ${f(stores)} ms | recalls ${f(recalls)} ms`);
  }
}
