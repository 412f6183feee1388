#!/usr/bin/env node
// `brain-mcp --embedded` as installed.js drives it (60 remembers, then 30 recalls over MCP stdio), from one or more
// checkouts alternated: the resident set after, the threads of the process, and how many frames the SQLite store's WAL
// reached (sqltail: does the checkpointer's thread start in such a session). Usage: node test/bench/embedded-wal.js
// [--builds /work/base3,.] [--rounds 2]
import { openSync, readdirSync, readFileSync, readSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { StdioSession, isolatedHome, workloadFact as fact, workloadQuery as query } from "./lib.js";

const { values } = parseArgs({
  options: { builds: { type: "string", default: "/work/base3,." }, rounds: { type: "string", default: "2" } },
});
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const threads = (pid) => readdirSync(`/proc/${pid}/task`).length;

function walFramesIn(dir) {
  for (const entry of readdirSync(dir, { recursive: true })) {
    if (!String(entry).endsWith(".db-shm")) continue;
    const b = Buffer.alloc(4);
    readSync(openSync(join(dir, String(entry)), "r"), b, 0, 4, 16);
    return b.readUInt32LE(0);
  }
  return null;
}

async function embeddedSession(build) {
  const { home, env } = isolatedHome("brain-embedded-wal-", { BRAIN_LOG: "error" });
  const session = new StdioSession(process.execPath, [join(build, "bin", "brain-mcp.js"), "--embedded"], env);
  await session.initialize();
  const names = (await session.request("tools/list")).result.tools.map((t) => t.name);
  const call = async (base, args) => {
    const answer = await session.request("tools/call", { name: names.find((n) => n.endsWith(base)), arguments: args });
    if (answer.error || answer.result?.isError) throw new Error(`${base} failed: ${JSON.stringify(answer)}`);
  };
  let most = 0;
  for (let i = 0; i < 60; i++) {
    await call("remember", { text: fact(i) });
    most = Math.max(most, walFramesIn(home) ?? 0);
  }
  for (let i = 0; i < 30; i++) {
    await call("recall", { query: query(i) });
    most = Math.max(most, walFramesIn(home) ?? 0);
  }
  await new Promise((r) => setTimeout(r, 200));
  const { pid } = session.child;
  const out = { rss: rss(pid), threads: threads(pid), most, load: loadavg()[0].toFixed(2) };
  await session.close();
  rmSync(home, { recursive: true, force: true });
  return out;
}

const builds = values.builds.split(",").map((b) => resolve(b));
for (let round = 0; round < Number(values.rounds); round++) {
  for (const build of builds) {
    const r = await embeddedSession(build);
    console.log(
      `${build}: RSS ${r.rss.toFixed(0)} MB after 60 remembers + 30 recalls, ${r.threads} threads, WAL at most ${r.most} frames (load ${r.load})`,
    );
  }
}
