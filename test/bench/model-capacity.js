#!/usr/bin/env node
// The model alone, on one core: the service's own embed worker (one worker thread, one ONNX thread), fed the fleet's
// mix of texts in batches of a given size, back to back. Texts per second here is the ceiling one core of model time
// allows; the fleet benchmark reports its requests/s as a share of two of them.
// Usage: npm run build && node test/bench/model-capacity.js [--seconds 4] [--sizes 1,2,4,8,16,32]
//   prints, per batch size, ms per text for queries and for documents, and texts/s for the fleet's mix.
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { offlineEmbedderKind } from "../../dist/service/models/embed/index.js";
import { createWorkerEmbedder } from "../../dist/service/models/worker-embedder.js";
import { corpus, shuffled } from "./corpus.js";

/** The fleet's texts: recalls are 4 to 10 words of a corpus text, stores a whole one; two recalls per store. */
export function fleetTexts(count = 600) {
  const { passages, pieces } = corpus();
  const texts = shuffled([...passages, ...pieces], 11);
  const queries = [];
  const documents = [];
  for (let n = 0; queries.length + documents.length < count; n++) {
    if (n % 3 === 2) documents.push(texts[n]);
    else
      queries.push(
        texts[n]
          .split(/\s+/)
          .slice(0, 4 + (n % 7))
          .join(" "),
      );
  }
  return { queries, documents };
}

/**
 * Runs batches of `batch` texts through one embed worker for about `seconds`; `purpose` "mix" interleaves the
 * fleet's share of queries and documents (each batch one purpose, as the service batches them).
 */
export async function modelTextsPerSecond({ batch = 16, seconds = 4, purpose = "mix", texts = fleetTexts(), embedder } = {}) {
  const own = !embedder;
  embedder ??= createWorkerEmbedder(offlineEmbedderKind(process.env));
  await embedder.load();
  await embedder.embed(texts.queries.slice(0, batch), "query"); // kernels compile on the first run
  const plan = purpose === "mix" ? ["query", "query", "document"] : [purpose];
  const cursor = { query: 0, document: 0 };
  const take = (kind) => {
    const pool = kind === "query" ? texts.queries : texts.documents;
    const out = [];
    for (let i = 0; i < batch; i++) out.push(pool[cursor[kind]++ % pool.length]);
    return out;
  };
  let done = 0;
  let busyMs = 0;
  const cpuBefore = process.cpuUsage(); // the whole process: the worker's thread included, the idle main thread adds ~0
  const until = performance.now() + seconds * 1000;
  for (let n = 0; performance.now() < until; n++) {
    const kind = plan[n % plan.length];
    const chunk = take(kind);
    const started = performance.now();
    await embedder.embed(chunk, kind);
    busyMs += performance.now() - started;
    done += chunk.length;
  }
  const cpu = process.cpuUsage(cpuBefore);
  if (own) await embedder.close();
  const cpuMsPerText = (cpu.user + cpu.system) / 1000 / done;
  // Wall time is what a quiet core gives; CPU time per text is what the model costs whatever else runs.
  return { textsPerSecond: (1000 * done) / busyMs, msPerText: busyMs / done, cpuMsPerText, texts: done };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { loadavg } = await import("node:os");
  const { values } = parseArgs({
    options: { seconds: { type: "string", default: "4" }, sizes: { type: "string", default: "1,2,4,8,16,32" } },
  });
  const seconds = Number(values.seconds);
  const texts = fleetTexts();
  const embedder = createWorkerEmbedder(offlineEmbedderKind(process.env));
  console.log(`embedder ${embedder.id}, one worker thread, one ONNX thread; load average ${loadavg()[0].toFixed(2)} at start`);
  console.log("batch | query ms/text (CPU) | document ms/text (CPU) | fleet mix texts/s (per CPU-second) | load");
  for (const batch of values.sizes.split(",").map(Number)) {
    const q = await modelTextsPerSecond({ batch, seconds, purpose: "query", texts, embedder });
    const d = await modelTextsPerSecond({ batch, seconds, purpose: "document", texts, embedder });
    const mix = await modelTextsPerSecond({ batch, seconds, purpose: "mix", texts, embedder });
    console.log(
      `${String(batch).padStart(5)} | ${q.msPerText.toFixed(2)} (${q.cpuMsPerText.toFixed(2)}) | ${d.msPerText.toFixed(2)} (${d.cpuMsPerText.toFixed(2)}) | ` +
        `${mix.textsPerSecond.toFixed(0)} (${(1000 / mix.cpuMsPerText).toFixed(0)}) | ${loadavg()[0].toFixed(2)}`,
    );
  }
  await embedder.close();
}
