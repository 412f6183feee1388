// In-process replica of the service's retrieve (src/service/retrieval/retrieve.ts) over both sets that judge the
// retrieval recipe: LoCoMo's development half and the project's retrieval set (in sequence, top_k 5, access counts
// accumulating as `npm run eval` asks). The store's own lexical SQL (dist/ shared-sql.ts) runs over an in-memory FTS5
// table per tokenizer; vectors and importance come from this checkout's offline embedder and judge. Merges are not
// replayed, so LoCoMo's figures sit within a few questions of `npm run eval:locomo`'s; it ranks variants, the real
// runs decide. Usage: npm run build && node test/eval/fusion-sim.js [--only NAME] [--conversations 26,30]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { createOfflineEmbedder } from "../../dist/service/models/embed/index.js";
import { createOfflineJudge } from "../../dist/service/models/judge/index.js";
import { lexicalSearchStatement, workspaceToken } from "../../dist/service/store/shared-sql.js";
import { searchTerms } from "../../dist/service/retrieval/search-terms.js";
import { speakerOf } from "../../dist/service/pipeline/same-fact.js";
import { frequency, importanceTerm } from "../../dist/service/retrieval/score.js";
import { relevanceFloorFor, SIMILARITY_EXPONENT, WEIGHTS } from "../../dist/service/retrieval/weights.js";
import { conversationIds, loadConversation } from "./locomo/dataset.js";
import { cosines, embedAll } from "./locomo/dense.js";
import { firstRank } from "./metrics.js";

const { values: args } = parseArgs({ options: { only: { type: "string" }, conversations: { type: "string" } } });

const TOKENIZERS = { words: "unicode61 remove_diacritics 2", trigram: "trigram remove_diacritics 1" };
const embedder = createOfflineEmbedder("semantic");
await embedder.load();
const judge = createOfflineJudge();
await judge.load();
const floor = relevanceFloorFor(embedder.id);

/** One corpus: texts, vectors, importance, and a lexical index per tokenizer running the store's statement. */
async function corpus(texts) {
  const vectors = await embedAll(embedder, texts, "document");
  const importance = [];
  for (let i = 0; i < texts.length; i++) importance.push((await judge.judge(texts[i], new Date(), vectors[i])).importance);
  const db = new Database(":memory:");
  db.exec("CREATE TABLE memories (id INTEGER PRIMARY KEY, workspace_id INTEGER, text TEXT)");
  const insert = db.prepare("INSERT INTO memories (id, workspace_id, text) VALUES (?, 1, ?)");
  db.transaction(() => texts.forEach((t, i) => insert.run(i + 1, t)))();
  for (const [name, tokenize] of Object.entries(TOKENIZERS)) {
    db.exec(`CREATE VIRTUAL TABLE lex_${name} USING fts5(text, workspace, content = '', contentless_delete = 1, tokenize = '${tokenize}')`);
    // The store's workspace token (shared-sql.ts workspaceToken), in both tables.
    db.exec(`INSERT INTO lex_${name} (rowid, text, workspace) SELECT id, text, '${workspaceToken(1)}' FROM memories`);
  }
  const cache = new Map();
  function lexical(name, query, minLength) {
    const key = `${name}\0${minLength}\0${query}`;
    if (cache.has(key)) return cache.get(key);
    const terms = searchTerms(query).filter((t) => [...t].length >= minLength);
    let rows = [];
    if (terms.length > 0) {
      const st = lexicalSearchStatement("sqlite", 1, terms, 50);
      rows = db
        .prepare(st.sql.replaceAll("memory_text", `lex_${name}`))
        .all(...st.params)
        .map((r) => ({ index: Number(r.id) - 1, score: r.score, queryWeight: r.queryWeight }));
    }
    // The query's whole weight, as the store returns it with every match (0 when nothing matched).
    rows.queryWeight = rows.length > 0 ? rows[0].queryWeight : 0;
    cache.set(key, rows);
    return rows;
  }
  return { texts, vectors, importance, speakers: texts.map(speakerOf), lexical };
}

/** The service's ranking of one query under `recipe`; access counts of the chosen memories go up. */
function retrieve(c, query, queryVector, access, topK, recipe) {
  const cos = cosines(queryVector, c.vectors);
  const dense = [...cos.keys()]
    .filter((i) => cos[i] >= floor)
    .sort((a, b) => cos[b] - cos[a])
    .slice(0, 50);
  if (dense.length === 0) return [];
  const lexical = c.lexical(recipe.tokenizer, query, recipe.tokenizer === "trigram" ? 3 : 1);
  const lex = new Map(lexical.map((m) => [m.index, m.score]));
  const bestCos = cos[dense[0]];
  const bestLex = lexical[0]?.score ?? 0;
  const queryWords = new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const ids = new Set([...dense, ...lexical.map((m) => m.index)]);
  const fused = new Map();
  for (const i of ids) {
    const span = bestCos - floor;
    const d = span > 1e-9 ? Math.min(1, Math.max(0, (cos[i] - floor) / span)) : 1;
    // recipe.whole: the share of the query's whole weight the lexical score is at least relative to (0: the best match).
    const norm = recipe.coverage ? lexical.queryWeight : Math.max(bestLex + recipe.s, (recipe.whole ?? 0) * lexical.queryWeight);
    const l = lex.has(i) ? Math.min(1, lex.get(i) / norm) : 0;
    let f = (1 - recipe.share) * d + recipe.share * l;
    const who = c.speakers[i];
    if (recipe.speaker && who && who.split(/\s+/).every((w) => queryWords.has(w))) f *= recipe.speaker;
    fused.set(i, f);
  }
  const best = Math.max(...fused.values());
  const scored = [...fused].map(([i, f]) => ({
    i,
    c: cos[i],
    s:
      WEIGHTS.similarity * (f / best) ** SIMILARITY_EXPONENT +
      WEIGHTS.recency +
      WEIGHTS.importance * importanceTerm(c.importance[i]) +
      WEIGHTS.frequency * frequency(access[i]),
  }));
  scored.sort((a, b) => b.s - a.s || b.c - a.c);
  const chosen = scored.slice(0, topK).map((x) => x.i);
  for (const i of chosen) access[i]++;
  return chosen;
}

// The project's set, asked in sequence as `npm run eval` asks it.
const retrievalSet = JSON.parse(readFileSync(new URL("./sets/retrieval.json", import.meta.url), "utf8"));
const project = await corpus(retrievalSet.memories.map((m) => m.text));
const projectQueries = await embedAll(
  embedder,
  retrievalSet.questions.map((q) => q.q),
  "query",
);
const projectAnswers = retrievalSet.questions.map((q) => q.answers.map((id) => retrievalSet.memories.findIndex((m) => m.id === id)));

const locomo = [];
for (const id of conversationIds(args.conversations)) {
  const conv = loadConversation(id);
  const c = await corpus(conv.turns.map((t) => t.text));
  const index = new Map(conv.turns.map((t, i) => [t.diaId, i]));
  const qv = await embedAll(
    embedder,
    conv.questions.map((q) => q.question),
    "query",
  );
  locomo.push({ c, questions: conv.questions.map((q, i) => ({ q: q.question, v: qv[i], evidence: q.evidence.map((d) => index.get(d)) })) });
}

function measure(recipe) {
  const access = project.texts.map(() => 0);
  const ranks = retrievalSet.questions.map((q, i) =>
    firstRank(retrieve(project, q.q, projectQueries[i], access, 5, recipe), projectAnswers[i]),
  );
  const n = ranks.length;
  const p = { r3: ranks.filter((r) => r >= 1 && r <= 3).length / n, mrr: ranks.reduce((s, r) => s + (r ? 1 / r : 0), 0) / n };
  for (const split of ["dev", "holdout"]) {
    const rs = ranks.filter((_, i) => retrievalSet.questions[i].split === split);
    p[split] =
      `${split} r3 ${(rs.filter((r) => r >= 1 && r <= 3).length / rs.length).toFixed(3)} mrr ${(rs.reduce((s, r) => s + (r ? 1 / r : 0), 0) / rs.length).toFixed(3)}`;
  }
  const lr = [];
  for (const { c, questions } of locomo) {
    const acc = c.texts.map(() => 0);
    for (const q of questions) lr.push(firstRank(retrieve(c, q.q, q.v, acc, 10, recipe), q.evidence));
  }
  const m = lr.length;
  const l = {
    r5: lr.filter((r) => r >= 1 && r <= 5).length / m,
    r10: lr.filter((r) => r >= 1).length / m,
    mrr: lr.reduce((s, r) => s + (r ? 1 / r : 0), 0) / m,
  };
  return { p, l };
}

const f = (x) => x.toFixed(3);
/** The recipe before this branch, each step of the one shipped (weights.ts), and the variants that were not adopted. */
const base = { tokenizer: "words", share: 0.6, s: 8, speaker: 0, whole: 0 };
const shipped = { ...base, tokenizer: "trigram", speaker: 1.2, whole: 0.9 };
const recipes = [
  { name: "799df8d: words, share 0.6, s 8", ...base },
  { name: "+ trigram", ...base, tokenizer: "trigram" },
  { name: "+ speaker 1.2", ...base, tokenizer: "trigram", speaker: 1.2 },
  { name: "shipped: + whole query 0.9", ...shipped },
  ...[0.8, 0.85, 0.95, 1].map((whole) => ({ name: `whole query ${whole}`, ...shipped, whole })),
  { name: "plain coverage (lexical / query weight)", ...shipped, coverage: true },
  ...[0.5, 0.7].map((share) => ({ name: `share ${share}`, ...shipped, share })),
  { name: "words instead of trigram", ...shipped, tokenizer: "words" },
];
console.log("recipe                                   | project r@3  MRR   | LoCoMo R@5  R@10  MRR@10 | project by split");
for (const recipe of recipes) {
  if (args.only && !recipe.name.startsWith(args.only)) continue;
  const { p, l } = measure(recipe);
  console.log(`${recipe.name.padEnd(40)} | ${f(p.r3)}  ${f(p.mrr)} | ${f(l.r5)}  ${f(l.r10)}  ${f(l.mrr)} | ${p.dev}; ${p.holdout}`);
}

if (process.env.SIM_VERBOSE) {
  const recipe = JSON.parse(process.env.SIM_VERBOSE);
  const access = project.texts.map(() => 0);
  retrievalSet.questions.forEach((q, qi) => {
    const before = [...access];
    const chosen = retrieve(project, q.q, projectQueries[qi], access, 5, recipe);
    const rank = firstRank(chosen, projectAnswers[qi]);
    if (rank === 1) return;
    const cos = cosines(projectQueries[qi], project.vectors);
    const lex = new Map(project.lexical(recipe.tokenizer, q.q, recipe.tokenizer === "trigram" ? 3 : 1).map((m) => [m.index, m.score]));
    console.log(`\n[${q.split}] rank ${rank}: ${q.q}  (answers ${projectAnswers[qi].join(",")})`);
    for (const i of [...chosen, ...projectAnswers[qi].filter((a) => !chosen.includes(a))])
      console.log(
        `  ${projectAnswers[qi].includes(i) ? "*" : " "} #${i} cos ${f(cos[i])} lex ${f(lex.get(i) ?? 0)} imp ${project.importance[i]} acc ${before[i]}  ${project.texts[i].slice(0, 80)}`,
      );
  });
}
