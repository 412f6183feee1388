// Embedding latency: load time, and per-text p50/p99 for short texts (queries) and longer ones (documents), one text
// per call as the service embeds them, plus a batch of 32. Real, varied text:
// Debian's fortunes when unpacked (BENCH_FORTUNES=dir), else the evaluation set's memories and questions.
// Usage: npm run build && node test/bench/embed.js   (BRAIN_EMBEDDER=hybrid|semantic|lexical, default hybrid)
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { createOfflineEmbedder, offlineEmbedderKind } from "../../dist/service/models/embed/index.js";

function texts() {
  const dir = process.env.BENCH_FORTUNES ?? "/tmp/fortunes/usr/share/games/fortunes";
  if (existsSync(dir)) {
    const out = [];
    for (const file of readdirSync(dir).filter((f) => !/\.(dat|u8)$/.test(f) && !/art/.test(f))) {
      for (const passage of readFileSync(path.join(dir, file), "latin1").split(/\n%\n/)) {
        const flat = passage.replace(/.\x08/g, "").replace(/\s+/g, " ").trim();
        if (flat.length >= 20 && flat.length <= 600) out.push(flat);
      }
    }
    return {
      source: dir,
      documents: out.filter((_, i) => i % 37 === 0).slice(0, 300),
      queries: out
        .filter((_, i) => i % 41 === 1)
        .map((t) => t.slice(0, 120))
        .slice(0, 300),
    };
  }
  const set = JSON.parse(readFileSync(new URL("../eval/sets/retrieval.json", import.meta.url), "utf8"));
  return { source: "test/eval/sets/retrieval.json", documents: set.memories.map((m) => m.text), queries: set.questions.map((q) => q.q) };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
async function timeEach(embedder, items, purpose) {
  const times = [];
  for (const text of items) {
    const started = performance.now();
    await embedder.embed([text], purpose);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return `p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms (n=${times.length})`;
}

const kind = offlineEmbedderKind(process.env);
const { source, documents, queries } = texts();
const embedder = createOfflineEmbedder(kind);
const loadStarted = performance.now();
await embedder.load();
console.log(`embedder ${embedder.id} (${embedder.dimensions} dimensions), texts from ${source}`);
console.log(`load: ${(performance.now() - loadStarted).toFixed(0)} ms`);
await embedder.embed(documents.slice(0, 3), "document"); // warm-up
console.log(`documents (20-600 characters), one text per call: ${await timeEach(embedder, documents, "document")}`);
console.log(`queries (up to 120 characters), one text per call: ${await timeEach(embedder, queries, "query")}`);
for (const [name, items] of [
  ["documents", documents],
  ["queries", queries],
]) {
  const batch = items.slice(0, 32);
  const started = performance.now();
  await embedder.embed(batch, "document");
  console.log(`${name}, one batch of ${batch.length}: ${((performance.now() - started) / batch.length).toFixed(2)} ms per text`);
}
console.log(`resident set: ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
