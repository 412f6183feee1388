// Issue 30's third pass (branch `rank3`): re-ranks the candidates test/eval/rank-dump.js collected (dev rows only), as
// src/service/retrieval/retrieve.ts ranks them, with variants, and reports LoCoMo's R@1/R@5/R@10/MRR@10 per
// conversation (for leave-one-conversation-out choices) and the project set's dev ranking and answers kept at the
// default min_score. No model runs: the vectors are in the dump.
//
//   node test/eval/rank-replay.js [--from /tmp/rank-dump] [--only NAME]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  askingFactor,
  fusedRelevance,
  howMuchFactor,
  inflectedScorer,
  speakerFactor,
  whenFactor,
  wordSet,
} from "../../dist/service/retrieval/fusion.js";
import { searchTerms } from "../../dist/service/retrieval/search-terms.js";
import { confidence, withinScore } from "../../dist/service/retrieval/score.js";
import { CONFIDENCE_GAP_RANK, FUSION, LEXICAL_EVIDENCE } from "../../dist/service/retrieval/weights.js";
import { MIN_SCORE_DEFAULT } from "../../dist/contract/limits.js";
import { summarize } from "./locomo/measures.js";

export function loadDump(from) {
  const dump = JSON.parse(readFileSync(`${from}.json`, "utf8"));
  const buffer = readFileSync(`${from}.f32`);
  const all = new Float32Array(buffer.buffer, buffer.byteOffset, buffer.byteLength / 4);
  const d = dump.dimensions;
  const vec = (i) => all.subarray(i * d, (i + 1) * d);
  const memories = new Map();
  for (const w of dump.workspaces) for (const m of w.memories) memories.set(m.id, { ...m, vector: vec(m.vec) });
  for (const q of dump.queries) q.vector = vec(q.qv);
  return { ...dump, memories };
}

const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

/**
 * The service's ranking of a dumped query, with hooks: `params.dense(q, cands, ctx)` may return new cosines for the
 * fusion's dense term (the floor filter and the confidence keep the original ones), `params.extra(q, cand, ctx)` a
 * factor on the fused relevance, `params.lexical(q, cand)` a lexical score in place of the evidence's.
 */
export function rank(dump, q, params = {}) {
  const floor = dump.floor;
  if (q.dense.length === 0) return null;
  const cos = new Map(q.dense.map(([id, c]) => [id, c]));
  for (const id of Object.keys(q.lex).map(Number)) if (!cos.has(id)) cos.set(id, dot(q.vector, dump.memories.get(id).vector));
  for (const [id, c] of cos) if (c < floor && !(q.lex[id]?.carries ?? false)) cos.delete(id);
  const bestCosine = q.dense[0][1];
  const tenth = [...cos.values()].sort((a, b) => b - a)[CONFIDENCE_GAP_RANK - 1] ?? floor;
  let bestLexical = 0;
  let bestWords = 0;
  const lexOf = new Map();
  // As the service: the index's evidence plus the words held in another inflection (`params.inflected` its share).
  const inflected = params.inflected ?? LEXICAL_EVIDENCE.inflected;
  const hasLexical = Object.keys(q.lex).length > 0;
  const terms = searchTerms(q.q);
  const counts = new Map();
  for (const e of Object.values(q.lex)) for (const [t, n] of Object.entries(e.terms)) if (!counts.has(t)) counts.set(t, n);
  const scorer = inflectedScorer(terms, counts, q.total);
  for (const id of cos.keys()) {
    const e = q.lex[id];
    const added = hasLexical && inflected > 0 ? (inflected / LEXICAL_EVIDENCE.inflected) * scorer(e?.terms, dump.memories.get(id).text) : 0;
    const s = (params.lexical ? params.lexical(q, id, e, dump) : (e?.score ?? 0)) + added;
    if (!(s > 0)) continue;
    lexOf.set(id, s);
    bestLexical = Math.max(bestLexical, s);
    if (e) bestWords = Math.max(bestWords, e.wordScore);
  }
  const queryWeight = params.queryWeight ? params.queryWeight(q, dump) : q.queryWeight;
  const ctx = { floor, bestCosine, bestLexical, queryWeight };
  const ids = [...cos.keys()];
  const denseCos = params.dense ? params.dense(q, ids, cos, dump, ctx) : cos;
  const ctxDense = params.dense ? { ...ctx, bestCosine: Math.max(...denseCos.values()) } : ctx;
  const queryWords = wordSet(q.q);
  const fusedOf = new Map();
  for (const id of ids) {
    const text = dump.memories.get(id).text;
    let fused = fusedRelevance(denseCos.get(id), lexOf.get(id) ?? 0, params.fusion ? { ...ctxDense, ...params.fusion } : ctxDense, params);
    if (params.fuse) fused = params.fuse(denseCos.get(id), lexOf.get(id) ?? 0, ctxDense);
    fused *=
      speakerFactor(queryWords, text) *
      askingFactor(text) *
      whenFactor(q.q, text) *
      (params.howMuch === false ? 1 : howMuchFactor(q.q, text));
    if (params.extra) fused *= params.extra(q, id, text, dump);
    fusedOf.set(id, fused);
  }
  if (params.post) params.post(q, ids, fusedOf, cos, dump);
  const best = Math.max(...fusedOf.values());
  const cands = ids.map((id) => {
    const m = dump.memories.get(id);
    const { within } = withinScore(
      {
        relevance: fusedOf.get(id) / best,
        importance: m.importance,
        access_count: 0,
        created_at: q.nowMs ?? 0,
        last_accessed_at: null,
        valid_until: null,
      },
      q.nowMs ?? 0,
    );
    return { id, cosine: cos.get(id), within };
  });
  cands.sort((a, b) => b.within - a.within || b.cosine - a.cosine);
  return { bestCosine, bestWordShare: queryWeight > 0 ? bestWords / q.queryWeight : 0, bestGap: bestCosine - tenth, cands };
}

/** Measures of a variant: LoCoMo per conversation and in all, the project set's dev rows. */
export function measure(dump, params = {}) {
  const per = {};
  const locomo = [];
  const project = [];
  let projectKept = 0;
  let projectAnswerable = 0;
  let unrelatedAnswered = 0;
  let mismatches = 0;
  for (const q of dump.queries) {
    const r = rank(dump, q, params);
    if (
      !params.dense &&
      !params.extra &&
      !params.lexical &&
      !params.fuse &&
      !params.post &&
      !params.fusion &&
      params.inflected === undefined &&
      q.shipped &&
      r
    ) {
      const mine = r.cands
        .slice(0, 10)
        .map((c) => c.id)
        .join();
      if (mine !== q.shipped.slice(0, 10).join()) mismatches++;
    }
    const sure = r ? confidence(dump.floor, r.bestCosine, r.bestWordShare, r.bestGap) : 0;
    if (q.answers.length === 0) {
      if (q.set === "project" && r && sure * r.cands[0].within >= MIN_SCORE_DEFAULT) unrelatedAnswered++;
      continue;
    }
    const idx = r ? r.cands.findIndex((c) => q.answers.includes(c.id)) : -1;
    const rk = idx < 0 ? 0 : idx + 1;
    if (q.set === "locomo") {
      (per[q.conversation] ??= []).push(rk);
      locomo.push(rk);
    } else {
      project.push(rk);
      projectAnswerable++;
      if (rk >= 1 && rk <= 5 && sure * r.cands[idx].within >= MIN_SCORE_DEFAULT) projectKept++;
    }
  }
  return {
    locomo: summarize(locomo),
    per: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, summarize(v)])),
    project: summarize(project),
    projectKept: `${projectKept}/${projectAnswerable}`,
    unrelatedAnswered,
    mismatches,
  };
}

const clamp01 = (x) => Math.min(1, Math.max(0, x));

/** The fusion of fusion.ts with its constants as parameters (`share`, `sat`, `whole`, `span`, and exponents `dexp`, `lexp` on the two terms). */
export const fuseWith = (p) => (cosine, lexical, ctx) => {
  const span = Math.max(ctx.bestCosine - ctx.floor, p.span);
  const dense = clamp01((cosine - ctx.floor) / span) ** (p.dexp ?? 1);
  const scale = Math.max(ctx.bestLexical + p.sat, p.whole * ctx.queryWeight);
  const words = clamp01(lexical > 0 ? lexical / scale : 0) ** (p.lexp ?? 1);
  return (1 - p.share) * dense + p.share * words;
};

/** The shipped fusion's constants, in fuseWith's names. */
export const shippedFusion = {
  share: FUSION.lexicalShare,
  sat: FUSION.lexicalSaturation,
  whole: FUSION.wholeQueryShare,
  span: FUSION.minDenseSpan,
  dexp: 1,
  lexp: 1,
};

export const fmt = (m) => `R@1 ${m.r1.toFixed(3)} R@5 ${m.r5.toFixed(3)} R@10 ${m.r10.toFixed(3)} MRR ${m.mrr.toFixed(3)}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values: args } = parseArgs({ options: { from: { type: "string", default: "/tmp/rank-dump" } } });
  const dump = loadDump(args.from);
  const m = measure(dump);
  console.log(
    `shipped replay: LoCoMo ${fmt(m.locomo)}; project dev ${fmt(m.project)} kept ${m.projectKept}, unrelated answered ${m.unrelatedAnswered}; mismatches ${m.mismatches}`,
  );
  for (const [c, s] of Object.entries(m.per)) console.log(`  ${c} (${s.n}): ${fmt(s)}`);
}
