#!/usr/bin/env node
// Resident set of a warm, empty `serve` (issue 27): a fresh SQLite store, one store and five sequential retrieves,
// then the process's RSS from /proc, and again after 20 s idle (a worker started under load would be gone by then).
// Usage: npm run build && node test/bench/idle-rss.js
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "./service-proc.js";

const service = await startService({ dbPath: join(mkdtempSync(join(tmpdir(), "brain-bench-idle-")), "brain.db"), env: {} });
const post = async (path, json) => {
  const res = await fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(json),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
};
await post("/v1/memory/store", { text: "Staging lives in eu-west-1." });
for (let i = 0; i < 5; i++) await post("/v1/memory/retrieve", { query: `where does staging live? (${i})` });
const warm = service.rssMb();
await new Promise((r) => setTimeout(r, 20_000));
console.log(
  `warm empty serve: RSS ${warm.toFixed(1)} MB, after 20 s idle ${service.rssMb().toFixed(1)} MB; load ${loadavg()[0].toFixed(1)}`,
);
await service.stop();
