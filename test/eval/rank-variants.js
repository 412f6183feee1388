// Issue 30's third pass: the variants measured on the dump (test/eval/rank-replay.js), each against the shipped
// ranking, per LoCoMo dev conversation (leave-one-conversation-out reads these) and on the project set's dev rows.
//   node test/eval/rank-variants.js [--from /tmp/rank-dump] [--only PREFIX]
import { parseArgs } from "node:util";
import { fmt, loadDump, measure, rank } from "./rank-replay.js";
import { foldText, wordsOf, wordMatch } from "../../dist/service/retrieval/search-terms.js";

const { values: args } = parseArgs({ options: { from: { type: "string", default: "/tmp/rank-dump" }, only: { type: "string" } } });
const dump = loadDump(args.from);

const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

/** Dense pseudo-relevance feedback: the query moved toward the first pass's top `k` candidates' vectors by `alpha`. */
const prf = (k, alpha, { byCosine = false, weighted = false } = {}) => ({
  dense(q, ids, cos) {
    const first = byCosine ? [...ids].sort((a, b) => cos.get(b) - cos.get(a)) : rank(dump, q).cands.map((c) => c.id);
    const top = first.slice(0, k);
    const v = Float64Array.from(q.vector);
    top.forEach((id, i) => {
      const w = weighted ? alpha / (i + 1) : alpha / top.length;
      const m = dump.memories.get(id).vector;
      for (let j = 0; j < v.length; j++) v[j] += w * m[j];
    });
    const norm = Math.sqrt(dot(v, v));
    const out = new Map();
    for (const id of ids) out.set(id, dot(v, dump.memories.get(id).vector) / norm);
    return out;
  },
});

/** Lexical score with each matched word's IDF raised to `p` (relative to the max IDF so the scale stays). */
const idf = (n, total) => Math.log(1 + (total - n + 0.5) / (n + 0.5));
const lexPower = (p, fragment = 0.1) => ({
  lexical(q, id, e) {
    const words = wordsOf(foldText(dump.memories.get(id).text));
    const top = idf(0, q.total);
    let s = 0;
    for (const [t, n] of Object.entries(e.terms)) {
      const w = top * (idf(n, q.total) / top) ** p;
      s += wordMatch(t, words) === "word" ? w : fragment * w;
    }
    return s;
  },
});

/** RRF-style tie-breaker: + eps · (1/(k + dense rank) + 1/(k + lexical rank)) on the fused relevance. */
const rrf = (eps, k = 60) => ({
  post(q, ids, fused, cos) {
    const byCos = [...ids].sort((a, b) => cos.get(b) - cos.get(a));
    const byLex = ids.filter((id) => q.lex[id]).sort((a, b) => q.lex[b].score - q.lex[a].score);
    const rc = new Map(byCos.map((id, i) => [id, i + 1]));
    const rl = new Map(byLex.map((id, i) => [id, i + 1]));
    for (const id of ids) fused.set(id, fused.get(id) + eps * (1 / (k + rc.get(id)) + (rl.has(id) ? 1 / (k + rl.get(id)) : 0)));
  },
});

const variants = {
  shipped: {},
  ...Object.fromEntries([1, 2, 3, 5, 10].flatMap((k) => [0.1, 0.2, 0.3, 0.5, 0.8].map((a) => [`prf k${k} a${a}`, prf(k, a)]))),
  ...Object.fromEntries([1, 3, 5].flatMap((k) => [0.2, 0.5].map((a) => [`prfcos k${k} a${a}`, prf(k, a, { byCosine: true })]))),
  ...Object.fromEntries([3, 5].flatMap((k) => [0.3, 0.5].map((a) => [`prfw k${k} a${a}`, prf(k, a, { weighted: true })]))),
  ...Object.fromEntries([0.5, 1.5, 2, 3].map((p) => [`idfpow ${p}`, lexPower(p)])),
  ...Object.fromEntries([0.5, 1, 2, 4].map((e) => [`rrf ${e}`, rrf(e)])),
  ...Object.fromEntries([0.5, 1, 2].map((e) => [`rrf10 ${e}`, rrf(e, 10)])),
};

const base = measure(dump);
const convs = Object.keys(base.per);
for (const [name, params] of Object.entries(variants)) {
  if (args.only && !name.startsWith(args.only) && name !== "shipped") continue;
  const t = process.cpuUsage();
  const m = measure(dump, params);
  const cpu = process.cpuUsage(t);
  const folds = convs.map(
    (c) =>
      `${c} ${m.per[c].r5 - base.per[c].r5 >= 0 ? "+" : ""}${(m.per[c].r5 - base.per[c].r5).toFixed(3)}/${m.per[c].mrr - base.per[c].mrr >= 0 ? "+" : ""}${(m.per[c].mrr - base.per[c].mrr).toFixed(3)}`,
  );
  console.log(
    `${name.padEnd(16)} LoCoMo ${fmt(m.locomo)} | project MRR ${m.project.mrr.toFixed(3)} R@1 ${m.project.r1.toFixed(3)} kept ${m.projectKept} unrel ${m.unrelatedAnswered} | ΔR@5/ΔMRR ${folds.join(" ")} | ${((cpu.user + cpu.system) / 1000 / dump.queries.length).toFixed(2)} ms/q`,
  );
}
