#!/usr/bin/env node
// Where a process's CPU went, from V8 .cpuprofile files (node --cpu-prof): each sample is charged to the innermost
// frame of this project's built code on its stack (dist/…/file.js), else to what ran (Node's HTTP, the GC, idle).
// One table per thread (the main thread and each embed worker write a profile of their own).
// Usage: node test/bench/profile-summary.js DIR [--top 25] [--detail FILE] (FILE's samples by the function that ran)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, detail: { type: "string" } },
});
const dir = positionals[0];
if (!dir) throw new Error("usage: node test/bench/profile-summary.js DIR");

/** What a frame belongs to: a project module, a Node subsystem, or V8's own pseudo-frames. */
function placeOf(frame) {
  const url = frame.url ?? "";
  if (url.includes("/node_modules/")) {
    const inside = url.split("/node_modules/").pop().split("/");
    return `node_modules/${inside.slice(0, inside[0].startsWith("@") ? 2 : 1).join("/")}`;
  }
  const at = url.indexOf("/dist/");
  if (at >= 0) return url.slice(at + 1);
  if (url.startsWith("node:")) {
    if (/_http_|http_parser|node:http/.test(url)) return "node: HTTP";
    if (/net|stream|tcp/.test(url)) return "node: sockets and streams";
    return `node: ${url.slice(5).split("/").slice(-1)[0]}`;
  }
  if (frame.functionName === "parse" || frame.functionName === "stringify") return `native: JSON.${frame.functionName}`;
  return frame.functionName ? `(${frame.functionName.replace(/[()]/g, "")})` : "(native)";
}

const isProject = (frame) => (frame.url ?? "").includes("/dist/") && !(frame.url ?? "").includes("/node_modules/");

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".cpuprofile"))
  .sort()) {
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const charge = new Map();
  const detail = new Map();
  const dt = profile.timeDeltas;
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const ms = (dt[i + 1] ?? dt[i] ?? 0) / 1000;
    const self = byId.get(id);
    if (self.callFrame.functionName === "(idle)") return void (idle += ms);
    total += ms;
    let place = null;
    // JSON and the GC are named as themselves even when a project frame called them.
    const own = placeOf(self.callFrame);
    if (own.startsWith("native: JSON") || own === "(garbage collector)") place = own;
    for (let at = id; place === null && at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at).callFrame;
      if (isProject(frame)) place = placeOf(frame);
    }
    place ??= own;
    charge.set(place, (charge.get(place) ?? 0) + ms);
    if (values.detail && place.endsWith(values.detail)) {
      const what = `${place}: ${own} ${self.callFrame.functionName || "(anonymous)"}`;
      detail.set(what, (detail.get(what) ?? 0) + ms);
    }
  });
  const wall = (profile.endTime - profile.startTime) / 1000;
  console.log(
    `\n${file}: ${(total / 1000).toFixed(1)} s of CPU in ${(wall / 1000).toFixed(1)} s (${((100 * total) / wall).toFixed(0)}% busy)`,
  );
  for (const [place, ms] of [...charge].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
    console.log(`  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${(ms / 1000).toFixed(2).padStart(6)} s  ${place}`);
  }
  for (const [what, ms] of [...detail].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
    console.log(`    ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${what}`);
  }
}
