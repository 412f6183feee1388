// In-process check of the hybrid score's weights (src/service/retrieval/weights.ts) against cosine alone, the way
// `npm run eval` asks: the retrieval set's questions in sequence, top_k 5, access counts accumulating. Besides the
// one sequence, each split is also asked in 20 shuffled sessions of 3 passes (a longer agent session, where
// frequency matters more). Dev rows choose; holdout rows only report. Importance comes from the offline judge, as
// in the service; recency is ~1 for every memory here (all stored just now), so it only shifts every score alike.
// Usage: npm run build && node test/eval/tune-score.js
import { readFileSync } from "node:fs";
import { createOfflineEmbedder } from "../../dist/service/models/embed/index.js";
import { createOfflineJudge } from "../../dist/service/models/judge/index.js";
import { frequency, importanceTerm } from "../../dist/service/retrieval/score.js";
import { relevanceFloorFor, SIMILARITY_EXPONENT, WEIGHTS } from "../../dist/service/retrieval/weights.js";
import { firstRank, rankMeasures } from "./metrics.js";

const { memories, questions } = JSON.parse(readFileSync(new URL("./sets/retrieval.json", import.meta.url), "utf8"));
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const TOP_K = 5;

const embedder = createOfflineEmbedder(process.env.BRAIN_EMBEDDER ?? "hybrid");
await embedder.load();
const judge = createOfflineJudge();
await judge.load();
const docs = await embedder.embed(
  memories.map((m) => m.text),
  "document",
);
const importance = [];
for (let i = 0; i < memories.length; i++) importance.push((await judge.judge(memories[i].text, new Date(), docs[i])).importance);
const queries = await embedder.embed(
  questions.map((q) => q.q),
  "query",
);
const cosines = queries.map((q) => docs.map((d) => dot(q, d)));
const answers = questions.map((q) => q.answers.map((id) => memories.findIndex((m) => m.id === id)));
const floor = relevanceFloorFor(embedder.id);

/** Ranks of the asked questions, in order, under one weighting (weights.similarity = 1, rest 0: cosine alone). */
function session(order, w, power) {
  const access = memories.map(() => 0);
  return order.map((qi) => {
    const cos = cosines[qi];
    const candidates = memories.map((_, i) => i).filter((i) => cos[i] >= floor);
    if (candidates.length === 0) return 0;
    const best = Math.max(...candidates.map((i) => cos[i]));
    const sim = (c) => (best - floor > 1e-9 ? Math.min(1, (c - floor) / (best - floor)) ** power : 1);
    const chosen = candidates
      .map((i) => ({
        i,
        c: cos[i],
        s: w.similarity * sim(cos[i]) + w.recency + w.importance * importanceTerm(importance[i]) + w.frequency * frequency(access[i]),
      }))
      .sort((a, b) => b.s - a.s || b.c - a.c)
      .slice(0, TOP_K);
    for (const c of chosen) access[c.i]++;
    return firstRank(
      chosen.map((c) => c.i),
      answers[qi],
    );
  });
}

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const shuffled = (xs) =>
  xs
    .map((x) => [random(), x])
    .sort((a, b) => a[0] - b[0])
    .map(([, x]) => x);
const splits = { dev: [], holdout: [] };
questions.forEach((q, i) => splits[q.split].push(i));
const sessions = Object.fromEntries(
  Object.entries(splits).map(([split, idx]) => [
    split,
    Array.from({ length: 20 }, () => [...shuffled(idx), ...shuffled(idx), ...shuffled(idx)]),
  ]),
);

function measure(w, power) {
  const sequence = session(
    questions.map((_, i) => i),
    w,
    power,
  );
  const out = {};
  for (const split of ["dev", "holdout"]) {
    out[split] = rankMeasures(sequence.filter((_, i) => questions[i].split === split));
    out[split + "Stress"] = rankMeasures(sessions[split].flatMap((order) => session(order, w, power)));
  }
  return out;
}

const f = (x) => x.toFixed(3);
const line = (name, m) =>
  `${name.padEnd(36)} dev r3 ${f(m.dev.r3)} mrr ${f(m.dev.mrr)} stress r3 ${f(m.devStress.r3)} mrr ${f(m.devStress.mrr)}` +
  ` | holdout r3 ${f(m.holdout.r3)} mrr ${f(m.holdout.mrr)} stress r3 ${f(m.holdoutStress.r3)} mrr ${f(m.holdoutStress.mrr)}`;
console.log(`${embedder.id}, relevance floor ${floor}, top_k ${TOP_K}`);
console.log(line("cosine alone", measure({ similarity: 1, recency: 0, importance: 0, frequency: 0 }, 1)));
console.log(line(`shipped (weights.ts, power ${SIMILARITY_EXPONENT})`, measure(WEIGHTS, SIMILARITY_EXPONENT)));
const grid = [
  [1, [0.6, 0.15, 0.15, 0.1]],
  [1, [0.8, 0.1, 0.05, 0.05]],
  [1, [0.85, 0.05, 0.05, 0.05]],
  [2, [0.6, 0.15, 0.15, 0.1]],
  [2, [0.7, 0.15, 0.1, 0.05]],
  [2, [0.7, 0.1, 0.1, 0.1]],
  [2, [0.75, 0.1, 0.1, 0.05]],
  [2, [0.8, 0.1, 0.05, 0.05]],
  [3, [0.75, 0.1, 0.1, 0.05]],
];
for (const [power, [similarity, recency, importanceW, frequencyW]] of grid) {
  const m = measure({ similarity, recency, importance: importanceW, frequency: frequencyW }, power);
  console.log(line(`power ${power} ${similarity}/${recency}/${importanceW}/${frequencyW}`, m));
}
