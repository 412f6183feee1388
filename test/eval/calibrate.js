// In-process calibration beside `npm run eval`: pair cosines for the dedup threshold, cosine-only retrieval for
// choosing the hybrid's lexical share, and the relevance floor (cosines of unrelated questions). Dev rows choose;
// holdout rows only report. Usage: npm run build && node test/eval/calibrate.js
import { readFileSync } from "node:fs";
import { createOfflineEmbedder } from "../../dist/service/models/embed/index.js";
import { factConflict } from "../../dist/service/pipeline/same-fact.js";
import { firstRank, rankMeasures } from "./metrics.js";

const set = (name) => JSON.parse(readFileSync(new URL(`./sets/${name}.json`, import.meta.url), "utf8"));
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const { memories, questions } = set("retrieval");
const { pairs } = set("dedup");
const unrelated = [
  "What is the capital of Mongolia?",
  "How many moons does Jupiter have?",
  "Recommend a recipe for lemon drizzle cake.",
  "Who won the 1966 football world cup?",
  "Explain the rules of cricket.",
];

/** Merged when the cosine reaches t and dedup's rules (speaker, key terms) find no different fact. */
const merges = (p, t) => p.cos >= t && !p.distinct;

/**
 * The dedup threshold: the highest cosine that still merges at least 90% of the dev duplicates (a wrong merge loses
 * a fact; a missed one only leaves a near-copy), 0.01 below that duplicate's cosine. Accuracy on dev at it.
 */
function bestThreshold(scored) {
  const dups = scored
    .filter((p) => p.duplicate && !p.distinct)
    .map((p) => p.cos)
    .sort((a, b) => b - a);
  const keep = Math.ceil(0.9 * scored.filter((p) => p.duplicate).length);
  const t = (dups[Math.min(keep, dups.length) - 1] ?? 1) - 0.01;
  return { t, acc: scored.filter((p) => merges(p, t) === p.duplicate).length / scored.length };
}

const configs = [["lexical", {}], ["semantic", {}], ...[0.1, 0.2, 0.3].map((lexicalShare) => ["hybrid", { lexicalShare }])];
for (const [kind, options] of configs) {
  const embedder = createOfflineEmbedder(kind, options);
  await embedder.load();
  const docs = await embedder.embed(
    memories.map((m) => m.text),
    "document",
  );
  const ranks = { dev: [], holdout: [] };
  const answerCos = [];
  for (const q of questions) {
    const [v] = await embedder.embed([q.q], "query");
    const cos = docs.map((d) => dot(v, d));
    const ranked = memories
      .map((m, i) => [m.id, cos[i]])
      .sort((a, b) => b[1] - a[1])
      .map(([id]) => id);
    ranks[q.split].push(firstRank(ranked, q.answers));
    answerCos.push(Math.max(...q.answers.map((id) => cos[memories.findIndex((m) => m.id === id)])));
  }
  const unrelatedMax = [];
  for (const q of unrelated) {
    const [v] = await embedder.embed([q], "query");
    unrelatedMax.push(Math.max(...docs.map((d) => dot(v, d))));
  }
  const scoredPairs = [];
  for (const p of pairs) {
    const [a, b] = await embedder.embed([p.a, p.b], "document");
    scoredPairs.push({ ...p, cos: dot(a, b), distinct: factConflict(p.a, p.b) !== null });
  }
  const dev = bestThreshold(scoredPairs.filter((p) => p.split === "dev"));
  const holdoutAcc = (t) => {
    const h = scoredPairs.filter((p) => p.split === "holdout");
    return h.filter((p) => merges(p, t) === p.duplicate).length / h.length;
  };
  const sortedAnswers = [...answerCos].sort((a, b) => a - b);
  const m = (r) => rankMeasures(r);
  console.log(
    `${embedder.id.padEnd(34)} ${JSON.stringify(options).padEnd(58)} dev r@1 ${m(ranks.dev).r1.toFixed(3)} r@3 ${m(ranks.dev).r3.toFixed(3)} mrr ${m(ranks.dev).mrr.toFixed(3)} | holdout r@1 ${m(ranks.holdout).r1.toFixed(3)} r@3 ${m(ranks.holdout).r3.toFixed(3)} mrr ${m(ranks.holdout).mrr.toFixed(3)}` +
      ` | dedup dev t=${dev.t.toFixed(3)} acc ${dev.acc.toFixed(3)} holdout@t ${holdoutAcc(dev.t).toFixed(3)} holdout@set ${holdoutAcc(embedder.dedupThreshold).toFixed(3)}` +
      ` | answer cos p10 ${sortedAnswers[Math.floor(sortedAnswers.length * 0.1)].toFixed(3)} median ${sortedAnswers[Math.floor(sortedAnswers.length / 2)].toFixed(3)} min ${sortedAnswers[0].toFixed(3)}; unrelated max ${Math.max(...unrelatedMax).toFixed(3)}`,
  );
  if (process.env.CALIBRATE_PAIRS)
    for (const p of scoredPairs)
      console.log(`   ${p.duplicate ? "DUP " : "DIFF"} ${p.cos.toFixed(3)}${p.distinct ? " distinct" : ""} ${p.split} ${p.a} | ${p.b}`);
}
