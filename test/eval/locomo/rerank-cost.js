// What a cross-encoder reranker would cost per query, measured without its weights: ms-marco-MiniLM-L-6-v2 is the
// same BERT as the service's sentence model (6 layers, 384 wide, same vocabulary), so one run of the shipped
// MiniLM over the same (query, candidate) pairs, [CLS] q [SEP] d [SEP], on the same runtime and one thread, is its
// forward cost (the classification head is one 384→1 product). FINDINGS.md records why the reranker was dropped.
//
//   node test/eval/locomo/rerank-cost.js [--conversations 26] [--questions 60]
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { conversationIds, loadConversation } from "./dataset.js";

const HERE = fileURLToPath(new URL("../../../", import.meta.url));
const { values: args } = parseArgs({
  options: { conversations: { type: "string", default: "26" }, questions: { type: "string", default: "60" } },
});
const { loadSentenceModel, modelDirectory } = await import(pathToFileURL(path.join(HERE, "dist/service/models/embed/minilm.js")).href);

const model = await loadSentenceModel(modelDirectory());
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
for (const depth of [20, 30]) {
  const times = [];
  const cpu = [];
  const lengths = [];
  for (const id of conversationIds(args.conversations)) {
    const c = loadConversation(id);
    const inner = (text) => model.tokenize(text).slice(1, -1);
    const turns = c.turns.map((t) => inner(t.text));
    for (const [qi, q] of c.questions.slice(0, Number(args.questions)).entries()) {
      const query = inner(q.question);
      // Candidates: a spread of the conversation's turns (the cost depends on their lengths, not on which they are).
      const pairs = Array.from({ length: depth }, (_, i) => {
        const doc = turns[(qi * 7 + i * 13) % turns.length];
        return [101, ...query, 102, ...doc, 102].slice(0, 256);
      });
      lengths.push(pairs.reduce((n, p) => n + p.length, 0) / pairs.length);
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await model.run(pairs);
      const used = process.cpuUsage(c0);
      times.push(performance.now() - t0);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  // CPU time is what the query costs on a core of its own; wall time on a shared machine is longer.
  console.log(
    `cross-encoder cost over ${depth} candidates, one thread: CPU p50 ${percentile(cpu, 0.5).toFixed(1)} ms, p99 ${percentile(cpu, 0.99).toFixed(1)} ms;` +
      ` wall p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms (n=${times.length}, ${(lengths.reduce((a, b) => a + b, 0) / lengths.length).toFixed(0)} tokens a pair); load ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
  );
}
