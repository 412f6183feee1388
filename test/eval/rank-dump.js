// Issue 30's third pass (branch `rank3`): every dev question's candidates with the features the ranking reads, dumped
// once so that re-rankings can be measured in process without the model (test/eval/rank-replay.js). The workspaces are
// built as test/eval/calibrate-score.js builds them (the project set through openService, LoCoMo's turns straight into
// the store); **held-out rows are never collected**: only the project set's dev questions and LoCoMo's development
// half (each conversation's own questions, and the next conversation's asked of it as unrelated ones).
//
//   npm run build && node test/eval/rank-dump.js --out FILE        (FILE.json, FILE.f32: the vectors)
import { rmSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { VectorIndexes, storeSource } from "../../dist/service/retrieval/vector-index.js";
import { directReads } from "../../dist/service/bookkeeping.js";
import { rankCandidates } from "../../dist/service/retrieval/retrieve.js";
import { searchTerms } from "../../dist/service/retrieval/search-terms.js";
import { lexicalEvidence } from "../../dist/service/retrieval/fusion.js";
import { FUSION, relevanceFloorFor } from "../../dist/service/retrieval/weights.js";
import { storeEvalWorkspaces } from "./eval-workspaces.js";

const { values: args } = parseArgs({
  options: {
    conversations: { type: "string" },
    out: { type: "string", default: "/tmp/rank-dump" },
    // Issue 30's fourth pass: the two used-up held-out sets are development data now (test/eval/README.md, branch
    // `rank4`): `--splits dev,holdout` collects retrieval.json's holdout rows, `--set` reads another project set
    // (retrieval-holdout2.json), `--conversations none` stores no LoCoMo conversation. Never a fresh held-out set.
    splits: { type: "string", default: "dev" },
    set: { type: "string" },
  },
});

// Held-out rows are collected only when named (--splits).
const { dir, store, models, embedder, workspaces } = await storeEvalWorkspaces({
  conversations: args.conversations === "none" ? " " : args.conversations,
  setFile: args.set,
  splits: args.splits.split(","),
  prefix: "brain-rankdump-",
});
const deps = { store, reads: directReads(store), indexes: new VectorIndexes(embedder.dimensions, embedder.id), embedder };
const floor = relevanceFloorFor(embedder.id);
const out = { floor, workspaces: [], queries: [] };
const vectors = []; // memory vectors, then query vectors
for (const { ws, set: name, conversation, questions } of workspaces) {
  const memories = await store.listMemories(ws.id);
  const rows = await store.vectorsOf(
    ws.id,
    memories.map((m) => m.id),
  );
  const vecIndex = {};
  for (const r of rows) {
    vecIndex[r.id] = vectors.length;
    vectors.push(r.vector);
  }
  out.workspaces.push({
    id: ws.id,
    set: name,
    conversation,
    memories: memories.map((m) => ({ id: m.id, text: m.text, importance: m.importance, vec: vecIndex[m.id] })),
  });
  const index = await deps.indexes.refreshShared(ws.id, storeSource(store, ws.id));
  for (const q of questions) {
    const nowMs = Date.now();
    const ranked = await rankCandidates(deps, ws.id, q.q, nowMs);
    const [query] = await embedder.embed([q.q], "query");
    const qv = vectors.length;
    vectors.push(query);
    const lexical = await store.searchText(ws.id, searchTerms(q.q), FUSION.lexicalDepth);
    const dense = await index.search(query, floor, FUSION.denseDepth, (ids) => store.vectorsOf(ws.id, ids));
    const byId = new Map(memories.map((m) => [m.id, m]));
    const lex = {};
    for (const m of lexical) {
      const ev = lexicalEvidence(m, byId.get(m.id)?.text ?? "");
      lex[m.id] = { score: ev.score, wordScore: ev.wordScore, carries: ev.carriesWeight, terms: m.terms };
    }
    out.queries.push({
      ws: ws.id,
      set: name,
      conversation,
      category: q.category,
      split: q.split,
      q: q.q,
      answers: q.answers,
      qv,
      queryWeight: lexical[0]?.queryWeight ?? 0,
      total: lexical[0]?.total ?? memories.length,
      dense: dense.map((d) => [d.id, d.cosine]),
      lex,
      // The service's own order, to check the replay against.
      shipped: ranked ? ranked.candidates.map((c) => c.record.id) : null,
      evidence: ranked ? { bestCosine: ranked.bestCosine, bestWordShare: ranked.bestWordShare, bestGap: ranked.bestGap } : null,
    });
  }
  process.stderr.write(`ranked ${name} ${conversation ?? ""}: ${questions.length} questions\n`);
}
const d = embedder.dimensions;
const all = new Float32Array(vectors.length * d);
vectors.forEach((v, i) => all.set(v, i * d));
writeFileSync(`${args.out}.f32`, Buffer.from(all.buffer));
writeFileSync(`${args.out}.json`, JSON.stringify({ ...out, dimensions: d }));
await store.close();
await models.close?.();
rmSync(dir, { recursive: true, force: true });
process.stderr.write(`wrote ${args.out}.json and .f32 (${vectors.length} vectors)\n`);
