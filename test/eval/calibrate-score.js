// The score's calibration (issue 30): how sure a query is to have an answer (src/service/retrieval/score.ts
// confidence) and the default min_score. In-process over the built service: memories are stored through openService
// (the real pipeline, dedup included; LoCoMo's turns straight into the store) in a SQLite file, then each question is ranked by the service's own
// rankCandidates, which gives the query's evidence (best cosine, best whole-word lexical share, the best's gap to the
// tenth candidate) and each candidate's
// score before confidence. Answerable questions: the project set's questions and LoCoMo's development half (each
// conversation's own questions); unrelated ones: the project set's `unrelated` and each LoCoMo conversation's
// questions asked of the next conversation's workspace. Dev rows fit; holdout rows only report.
//
//   npm run build && node test/eval/calibrate-score.js [--conversations 26,30] [--locomo-questions 60] [--json FILE]
//     [--from FILE] [--holdout] [--set FILE]
// --set reads another project set of retrieval.json's shape (test/eval/sets/retrieval-holdout2.json: written blind,
// measured once).
// Prints the logistic fit (dev), then the curve per threshold: answers kept (the answer among the first top_k with a
// score at or above it) and unrelated questions answered (any memory at or above it), per set and split.
import { rmSync, writeFileSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { VectorIndexes } from "../../dist/service/retrieval/vector-index.js";
import { directReads } from "../../dist/service/bookkeeping.js";
import { rankCandidates } from "../../dist/service/retrieval/retrieve.js";
import { confidence } from "../../dist/service/retrieval/score.js";
import { relevanceFloorFor, CONFIDENCE } from "../../dist/service/retrieval/weights.js";
import { MIN_SCORE_DEFAULT } from "../../dist/contract/limits.js";
import { summarize } from "./locomo/measures.js";
import { storeEvalWorkspaces } from "./eval-workspaces.js";

const { values: args } = parseArgs({
  options: {
    conversations: { type: "string" },
    "locomo-questions": { type: "string", default: "80" },
    json: { type: "string" },
    from: { type: "string" },
    // Held-out rows are reported once, at the end of a change: without this flag the curve shows dev rows only.
    holdout: { type: "boolean", default: false },
    set: { type: "string" },
  },
});

/** Every question's evidence and the rank and within-score of its answer: the rows the fit and the curve read. */
async function collect() {
  const perConversation = Number(args["locomo-questions"]);
  const sample = (questions) =>
    questions.filter((_, i) => i % Math.max(1, Math.floor(questions.length / perConversation)) === 0).slice(0, perConversation);
  const {
    dir,
    store: storeRead,
    models,
    embedder,
    workspaces,
  } = await storeEvalWorkspaces({ conversations: args.conversations, sample, setFile: args.set, prefix: "brain-calibrate-" });

  const deps = { store: storeRead, reads: directReads(storeRead), indexes: new VectorIndexes(embedder.dimensions, embedder.id), embedder };
  const rows = [];
  for (const { ws, set: name, questions } of workspaces) {
    for (const q of questions) {
      const ranked = await rankCandidates(deps, ws.id, q.q, Date.now());
      const candidates = ranked?.candidates ?? [];
      const rank = candidates.findIndex((c) => q.answers.includes(c.record.id));
      rows.push({
        set: name,
        split: q.split,
        q: q.q,
        answerable: q.answers.length > 0,
        bestCosine: ranked?.bestCosine ?? null,
        bestWordShare: ranked?.bestWordShare ?? 0,
        bestGap: ranked?.bestGap ?? 0,
        topWithin: candidates[0]?.within ?? 0,
        answerRank: rank < 0 ? null : rank + 1,
        answerWithin: rank < 0 ? 0 : candidates[rank].within,
      });
    }
  }
  await storeRead.close();
  await models.close?.();
  rmSync(dir, { recursive: true, force: true });
  return { rows, floor: relevanceFloorFor(embedder.id) };
}

const { rows, floor } = args.from ? JSON.parse(readFileSync(args.from, "utf8")) : await collect();
if (args.json) writeFileSync(args.json, JSON.stringify({ rows, floor }));

/** The logistic's features of a row: best cosine over the floor, best whole-word share, the best's gap to the tenth. */
const features = (r) => [r.bestCosine - floor, r.bestWordShare, r.bestGap];

/** Logistic regression of answerable on the features, by Newton's method: weights [bias, ...one per feature]. */
function fitLogistic(points) {
  const d = points[0].x.length + 1;
  let w = new Array(d).fill(0);
  const z = (x) => [1, ...x].reduce((s, v, i) => s + v * w[i], 0);
  for (let iter = 0; iter < 100; iter++) {
    const g = new Array(d).fill(0);
    const h = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? 1e-6 : 0)));
    for (const { x, y } of points) {
      const v = [1, ...x];
      const p = 1 / (1 + Math.exp(-z(x)));
      for (let i = 0; i < d; i++) {
        g[i] += (y - p) * v[i];
        for (let j = 0; j < d; j++) h[i][j] += (p * (1 - p) + 1e-9) * v[i] * v[j];
      }
    }
    // Solve h · step = g by Gauss-Jordan elimination with partial pivoting.
    const a = h.map((row, i) => [...row, g[i]]);
    for (let i = 0; i < d; i++) {
      let pivot = i;
      for (let k = i + 1; k < d; k++) if (Math.abs(a[k][i]) > Math.abs(a[pivot][i])) pivot = k;
      [a[i], a[pivot]] = [a[pivot], a[i]];
      for (let k = 0; k < d; k++) {
        if (k === i) continue;
        const f = a[k][i] / a[i][i];
        for (let j = i; j <= d; j++) a[k][j] -= f * a[i][j];
      }
    }
    w = w.map((wi, i) => wi + a[i][d] / a[i][i]);
  }
  const ll = points.reduce((s, { x, y }) => {
    const p = 1 / (1 + Math.exp(-z(x)));
    return s + (y ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
  }, 0);
  // σ(w0 + w1·cos' + w2·share + w3·gap) = σ((cos' + wordShare·share + gap·gap − center) / width)
  return { center: -w[0] / w[1], width: 1 / w[1], wordShare: w[2] / w[1], gap: w[3] / w[1], ll };
}

// Each set weighs the same in the fit: the project set's rows are repeated to match LoCoMo's. Rows without a
// candidate (nothing reached the floor) return nothing whatever the confidence, and stay out.
const dev = rows.filter((r) => r.split === "dev" && r.bestCosine !== null);
const sets = [...new Set(dev.map((r) => r.set))];
const points = [];
for (const name of sets) {
  const mine = dev.filter((r) => r.set === name);
  const repeat = Math.max(1, Math.round(dev.length / sets.length / mine.length));
  for (const r of mine) for (let i = 0; i < repeat; i++) points.push({ x: features(r), y: r.answerable ? 1 : 0 });
}
const fit = fitLogistic(points);
const without = fitLogistic(points.map(({ x, y }) => ({ x: x.slice(0, 2), y })));
console.log(`fit (dev): ${JSON.stringify(fit)}`);
console.log(`without the gap: ${JSON.stringify(without)}`);
console.log(`shipped: ${JSON.stringify(CONFIDENCE)}, default min_score ${MIN_SCORE_DEFAULT}`);

/** The curve with the shipped confidence: answers kept and unrelated questions answered at threshold t. */
const topK = (name) => (name === "locomo" ? 10 : 5);
const sure = (r) => (r.bestCosine === null ? 0 : confidence(floor, r.bestCosine, r.bestWordShare, r.bestGap));
const kept = (r, t) => r.answerRank !== null && r.answerRank <= topK(r.set) && sure(r) * r.answerWithin >= t;
const answered = (r, t) => r.bestCosine !== null && sure(r) * r.topWithin >= t;
const groups = [...new Set(rows.map((r) => `${r.set}/${r.split}`))].filter((g) => args.holdout || !g.endsWith("/holdout"));
console.log(`\nthreshold | ${groups.map((g) => `${g}: answers kept / unrelated answered`).join(" | ")}`);
for (const t of [0, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6]) {
  const cells = groups.map((g) => {
    const [name, split] = g.split("/");
    const mine = rows.filter((r) => r.set === name && r.split === split);
    const yes = mine.filter((r) => r.answerable);
    const no = mine.filter((r) => !r.answerable);
    return `${yes.filter((r) => kept(r, t)).length}/${yes.length} (${(yes.filter((r) => kept(r, t)).length / yes.length).toFixed(3)}) / ${no.filter((r) => answered(r, t)).length}/${no.length}`;
  });
  console.log(`${t.toFixed(2).padStart(9)} | ${cells.join(" | ")}`);
}
const ceiling = groups.map((g) => {
  const [name, split] = g.split("/");
  const yes = rows.filter((r) => r.set === name && r.split === split && r.answerable);
  return `${g}: ${yes.filter((r) => r.answerRank !== null && r.answerRank <= topK(name)).length}/${yes.length}`;
});
console.log(`answer among the first top_k at threshold 0 (the ceiling): ${ceiling.join(", ")}`);
// The ranking alone (threshold 0), as test/eval/locomo/run.js measures it: first-hit ranks of the answerable rows.
for (const g of groups) {
  const [name, split] = g.split("/");
  const ranks = rows.filter((r) => r.set === name && r.split === split && r.answerable).map((r) => r.answerRank ?? 0);
  const m = summarize(ranks);
  console.log(`ranking ${g} (${m.n}): R@1 ${m.r1.toFixed(3)} R@5 ${m.r5.toFixed(3)} R@10 ${m.r10.toFixed(3)} MRR@10 ${m.mrr.toFixed(3)}`);
}
if (process.env.CALIBRATE_ROWS)
  for (const r of rows.filter((x) => x.set === "project" && (args.holdout || x.split === "dev")))
    console.log(
      `${r.split} ${r.answerable ? "A" : "U"} cos ${r.bestCosine?.toFixed(3)} share ${r.bestWordShare.toFixed(2)} gap ${r.bestGap.toFixed(3)} sure ${sure(r).toFixed(2)} rank ${r.answerRank} within ${r.answerWithin.toFixed(2)} top ${r.topWithin.toFixed(2)} ${r.q}`,
    );
