// Shared pieces of the benchmark scripts: percentiles, a raw MCP stdio session, the fortunes corpus, the machine.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, mkdtempSync } from "node:fs";
import { cpus, loadavg, totalmem, tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bin = join(root, "bin", "brain-mcp.js");

/** A new empty home for a spawned brain-mcp (its config and data under it), and the environment that points there. */
export function isolatedHome(prefix, extra = {}) {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    ...extra,
  };
  return { home, env };
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const ms = (v) => `${v.toFixed(2)} ms`;

export function machine() {
  const cpu = cpus()[0]?.model ?? "unknown cpu";
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${process.platform}, load ${load}`;
}

/** A child speaking newline-delimited JSON-RPC on stdio, without any SDK in the measuring process. */
export class StdioSession {
  constructor(command, args, env) {
    this.child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    this.pending = new Map();
    this.nextId = 1;
    this.buffer = "";
    this.stderr = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk) => {
      this.buffer += chunk;
      let nl;
      while ((nl = this.buffer.indexOf("\n")) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        const waiter = this.pending.get(msg.id);
        if (waiter) {
          this.pending.delete(msg.id);
          waiter(msg);
        }
      }
    });
    this.child.stderr.on("data", (d) => (this.stderr += d));
  }
  request(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }
  notify(method, params = {}) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  }
  async initialize(clientName = "bench") {
    const init = await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: clientName, version: "1.0.0" },
    });
    this.notify("notifications/initialized");
    return init;
  }
  close() {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once("exit", resolve);
      this.child.stdin.end();
      setTimeout(() => this.child.kill("SIGKILL"), 3000).unref();
    });
  }
}

/** Debian's fortunes: about 12,000 distinct English passages. Downloaded with apt-get if not installed. */
export function fortunes() {
  let dirs = ["/usr/share/games/fortunes"];
  if (!dirs.some(existsSync)) {
    const tmp = mkdtempSync(join(tmpdir(), "fortunes-"));
    execFileSync("sh", [
      "-c",
      `cd ${tmp} && apt-get download -q fortunes fortunes-min >/dev/null 2>&1 && for f in *.deb; do dpkg -x "$f" x; done`,
    ]);
    dirs = [join(tmp, "x", "usr", "share", "games", "fortunes")];
  }
  const seen = new Set();
  const texts = [];
  for (const dir of dirs.filter(existsSync)) {
    for (const file of readdirSync(dir)) {
      if (file.includes(".") || file === "off") continue;
      const raw = readFileSync(join(dir, file), "utf8");
      for (const entry of raw.split(/\n%\n/)) {
        const text = entry.replace(/\s+/g, " ").trim();
        if (text.length < 20 || text.length > 1500 || seen.has(text)) continue;
        seen.add(text);
        texts.push(text);
      }
    }
  }
  return texts;
}

/** CPU time (ms) of each thread of a process, by thread id (the main thread's id is the process's; Linux /proc). */
export function threadCpu(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10); // utime + stime, at 100 ticks a second
    } catch {}
  }
  return out;
}

// The recall workload of installed.js and recall-serve.js: distinct facts, and questions that each name one of them.
const PEOPLE = ["Maria", "Tomas", "Priya", "Chen", "Amara", "Lukas", "Sofia", "Kenji", "Ines", "Omar"];
const THINGS = ["the billing service", "the staging cluster", "the release checklist", "the on-call rota", "the data warehouse"];
const PLACES = ["Lisbon", "Osaka", "Nairobi", "Toronto", "Krakow", "Austin"];
export const workloadFact = (i) =>
  `${PEOPLE[i % 10]} owns ${THINGS[(i >> 1) % 5]} for team ${i} and reviews it every ${["Monday", "Wednesday", "Friday"][i % 3]} from ${PLACES[i % 6]} (ticket ${1000 + i}).`;
export const workloadQuery = (i) => `Who owns ${THINGS[i % 5]} for team ${(i * 7) % 600}?`;

/** CPU (ms) of a process tree one level deep: the process and its children (PostgreSQL's postmaster, its backends and
 * writers), from /proc. */
export function clusterCpu(pid) {
  let total = 0;
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(p) === pid || Number(f[1]) === pid) total += (Number(f[11]) + Number(f[12])) * 10;
    } catch {}
  }
  return total;
}

/** A recall as an agent words it: 4 to 10 consecutive words of a stored memory (service.js, tail.js). */
export function recallQuery(text, i) {
  const words = text.split(/\s+/);
  const len = 4 + (i % 7);
  const start = words.length > len ? (i * 31) % (words.length - len) : 0;
  return words
    .slice(start, start + len)
    .join(" ")
    .slice(0, 2000);
}
