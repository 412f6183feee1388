// The experiments that choose the retrieval recipe (FINDINGS.md), in-process on LoCoMo's development half: FTS5
// tokenizers and ranking, how deep each list goes into the fusion, RRF's k against a convex combination of
// normalized scores, query handling, the dense side (MiniLM alone or the hashed-lexical hybrid), and general
// mechanisms (speaker attribution, the session's neighbouring memories, the date). Relevance only: recency,
// importance and frequency are the service's and apply after.
//
//   node test/eval/locomo/experiments.js [--conversations 26,30] [--only PREFIX]
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { conversationIds, loadConversation } from "./dataset.js";
import { createBm25Okapi } from "./bm25.js";
import { cosines, embedAll, loadEmbedder } from "./dense.js";
import { createLexicalIndex } from "./lexical-index.js";
import { createPgLexical } from "./pg-lexical.js";
import { firstHit, rankByScore, reciprocalRankFusion, summarize } from "./measures.js";

const HERE = fileURLToPath(new URL("../../../", import.meta.url));
const { values: args } = parseArgs({
  options: { conversations: { type: "string" }, only: { type: "string" }, categories: { type: "boolean" }, postgres: { type: "boolean" } },
});
process.env.TMPDIR ??= path.join("/tmp", "locomo");
mkdirSync(process.env.TMPDIR, { recursive: true });

/** Min-max to [0, 1] over one list's candidates; a list of one scores 1. */
function minMax(list) {
  if (list.length === 0) return new Map();
  const scores = list.map((c) => c.score);
  const lo = Math.min(...scores);
  const span = Math.max(...scores) - lo;
  return new Map(list.map((c) => [c.index, span > 0 ? (c.score - lo) / span : 1]));
}

/** Σ w·normalized score over the lists (an absent candidate scores 0 in that list); best first. */
export function convexFusion(lists, weights, normalize = minMax) {
  const fused = new Map();
  lists.forEach((list, li) => {
    for (const [index, s] of normalize(list)) fused.set(index, (fused.get(index) ?? 0) + weights[li] * s);
  });
  return [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([index]) => index);
}

/** The fused score of each memory, plus a share of its session neighbours' (the memories stored just before/after). */
function withNeighbours(scored, turns, share) {
  const out = new Map(scored);
  for (const [index, s] of scored) {
    for (const j of [index - 1, index + 1]) {
      if (j < 0 || j >= turns.length || turns[j].session !== turns[index].session) continue;
      out.set(j, (out.get(j) ?? 0) + share * s);
    }
  }
  return [...out.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([index]) => index);
}

function rrfScores(lists, k, depth) {
  const fused = new Map();
  for (const list of lists) list.slice(0, depth).forEach((index, i) => fused.set(index, (fused.get(index) ?? 0) + 1 / (k + i + 1)));
  return fused;
}

/** Names of the conversation's speakers the question mentions (word match, case-insensitive). */
function speakersNamed(question, speakers) {
  const words = new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  return speakers.filter((s) => words.has(s.toLowerCase()));
}

async function main() {
  const ids = conversationIds(args.conversations);
  const conversations = ids.map((id) => loadConversation(id));
  const semantic = await loadEmbedder(HERE, "semantic");
  const hybrid = await loadEmbedder(HERE, "hybrid");

  // Per question: every candidate list the recipes below draw on, computed once.
  const questions = [];
  const postgres = args.postgres ? await createPgLexical(conversations) : null;
  const PG_METHODS = ["simpleCd", "simpleRank", "englishCd", "simpleBm25", "englishBm25", "trgm"];
  for (const c of conversations) {
    const texts = c.turns.map((t) => t.text);
    const dense = {
      semantic: {
        turns: await embedAll(semantic, texts, "document"),
        questions: await embedAll(
          semantic,
          c.questions.map((q) => q.question),
          "query",
        ),
      },
      hybrid: {
        turns: await embedAll(hybrid, texts, "document"),
        questions: await embedAll(
          hybrid,
          c.questions.map((q) => q.question),
          "query",
        ),
      },
    };
    const previous = c.turns.map((t, i) => (i > 0 && c.turns[i - 1].session === t.session ? c.turns[i - 1].text : ""));
    const dates = c.turns.map((t) => t.date);
    const index = createLexicalIndex(texts, { context: previous });
    const dated = createLexicalIndex(texts, { tokenizers: ["words"], context: dates });
    const bm25 = createBm25Okapi(texts);
    for (const [qi, q] of c.questions.entries()) {
      const relevant = new Set(q.evidence.map((d) => c.turns.findIndex((t) => t.diaId === d)));
      const cos = (kind) => {
        const scores = cosines(dense[kind].questions[qi], dense[kind].turns);
        return rankByScore(scores, 100).map((i) => ({ index: i, score: scores[i] }));
      };
      const okapi = bm25.scores(q.question);
      const pgLists = {};
      if (postgres) for (const m of PG_METHODS) pgLists[`pg_${m}`] = await postgres.search(c.id, q.question, m);
      questions.push({
        conversation: c.id,
        category: q.category,
        relevant,
        turns: c.turns,
        named: speakersNamed(q.question, c.speakers),
        lists: {
          okapi: rankByScore(okapi, 100, true).map((i) => ({ index: i, score: okapi[i] })),
          words: index.search("words", q.question, { depth: 100 }),
          wordsStop: index.search("words", q.question, { depth: 100, stopwords: true }),
          wordsPlain: index.search("words", q.question, { depth: 100, plain: true }),
          porter: index.search("porter", q.question, { depth: 100 }),
          trigram: index.search("trigram", q.question, { depth: 100 }),
          trigramStop: index.search("trigram", q.question, { depth: 100, stopwords: true }),
          porterStop: index.search("porter", q.question, { depth: 100, stopwords: true }),
          wordsStopPrev: index.search("words", q.question, { depth: 100, stopwords: true, contextWeight: 0.3 }),
          trigramStopPrev: index.search("trigram", q.question, { depth: 100, stopwords: true, contextWeight: 0.3 }),
          wordsPrev: index.search("words", q.question, { depth: 100, contextWeight: 0.3 }),
          wordsDate: dated.search("words", q.question, { depth: 100, contextWeight: 0.5 }),
          semantic: cos("semantic"),
          hybrid: cos("hybrid"),
          ...pgLists,
        },
      });
    }
    index.close();
    dated.close();
  }
  await postgres?.close();

  const ids_ = (list) => list.map((c) => c.index);
  const recipes = [];
  const add = (name, rank) => recipes.push({ name, rank });
  for (const l of [
    "okapi",
    "words",
    "wordsStop",
    "wordsPlain",
    "porter",
    "trigram",
    "trigramStop",
    "wordsPrev",
    "wordsDate",
    "semantic",
    "hybrid",
  ]) {
    add(`single ${l}`, (q) => ids_(q.lists[l]));
  }
  const rrf = (names, k, depth) => (q) =>
    reciprocalRankFusion(
      names.map((n) => ids_(q.lists[n])),
      { k, depth },
    );
  add("RRF okapi+semantic k60/50 (protocol baseline)", rrf(["okapi", "semantic"], 60, 50));
  for (const lex of ["words", "wordsStop", "porter", "trigram", "trigramStop"]) {
    for (const dense of ["semantic", "hybrid"]) {
      for (const k of [10, 30, 60])
        for (const depth of [20, 50, 100]) add(`RRF ${lex}+${dense} k${k}/${depth}`, rrf([lex, dense], k, depth));
    }
  }
  for (const dense of ["semantic", "hybrid"]) {
    for (const k of [10, 30, 60])
      for (const depth of [20, 50, 100]) add(`RRF words+trigram+${dense} k${k}/${depth}`, rrf(["words", "trigram", dense], k, depth));
  }
  for (const lex of ["words", "trigram"]) {
    for (const dense of ["semantic", "hybrid"]) {
      for (const depth of [20, 50, 100]) {
        for (const a of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]) {
          add(`convex ${lex}+${dense} a${a} /${depth}`, (q) =>
            convexFusion([q.lists[lex].slice(0, depth), q.lists[dense].slice(0, depth)], [a, 1 - a]),
          );
        }
      }
    }
  }
  // Calibrated: lexical as a share of the list's best bm25, dense as its raw cosine (no per-query stretch, so a
  // query unrelated to everything stays low).
  const ratio = (list) => {
    const top = list.length ? list[0].score : 1;
    return new Map(list.map((c) => [c.index, top > 0 ? c.score / top : 0]));
  };
  const raw = (list) => new Map(list.map((c) => [c.index, c.score]));
  const calibrated = (lists, weights) => {
    const fused = new Map();
    lists.forEach((list, li) => {
      for (const [index, s] of (li < lists.length - 1 ? ratio : raw)(list)) fused.set(index, (fused.get(index) ?? 0) + weights[li] * s);
    });
    return fused;
  };
  const order = (fused) => [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([i]) => i);
  for (const lex of ["wordsStop", "trigramStop", "porterStop", "wordsStopPrev", "trigramStopPrev"]) {
    for (const dense of ["semantic", "hybrid"]) {
      for (const depth of [20, 50, 100]) {
        for (const a of [0.4, 0.5, 0.6, 0.7, 0.8]) {
          add(`convexStop ${lex}+${dense} a${a} /${depth}`, (q) =>
            convexFusion([q.lists[lex].slice(0, depth), q.lists[dense].slice(0, depth)], [a, 1 - a]),
          );
          add(`calibrated ${lex}+${dense} a${a} /${depth}`, (q) =>
            order(calibrated([q.lists[lex].slice(0, depth), q.lists[dense].slice(0, depth)], [a, 1 - a])),
          );
        }
      }
    }
  }
  if (postgres) {
    for (const m of PG_METHODS) {
      add(`single pg_${m}`, (q) => ids_(q.lists[`pg_${m}`]));
      for (const a of [0.5, 0.6, 0.7]) {
        add(`pg convex pg_${m}+semantic a${a} /50`, (q) =>
          convexFusion([q.lists[`pg_${m}`].slice(0, 50), q.lists.semantic.slice(0, 50)], [a, 1 - a]),
        );
      }
      add(`pg RRF pg_${m}+semantic k10/50`, rrf([`pg_${m}`, "semantic"], 10, 50));
    }
  }
  for (const a of [0.2, 0.3, 0.4]) {
    add(`convex3 wordsStop+trigramStop+semantic ${a}/${a} /50`, (q) =>
      convexFusion([q.lists.wordsStop.slice(0, 50), q.lists.trigramStop.slice(0, 50), q.lists.semantic.slice(0, 50)], [a, a, 1 - 2 * a]),
    );
  }
  // Mechanisms on the convex trigramStop+semantic recipe: the speaker the question names, and the session neighbours.
  const base = (q, lex = "trigramStop") => {
    const fused = new Map();
    for (const [li, list] of [q.lists[lex].slice(0, 50), q.lists.semantic.slice(0, 50)].entries()) {
      for (const [index, s] of minMax(list)) fused.set(index, (fused.get(index) ?? 0) + [0.6, 0.4][li] * s);
    }
    return fused;
  };
  for (const boost of [0.05, 0.1, 0.2, 0.3]) {
    for (const lex of ["trigramStop", "trigramStopPrev", "wordsStopPrev"]) {
      add(`mech speaker x${1 + boost} on convex ${lex}+semantic a0.6/50`, (q) => {
        const fused = base(q, lex);
        if (q.named.length > 0) for (const [i, s] of fused) if (q.named.includes(q.turns[i].speaker)) fused.set(i, s * (1 + boost));
        return order(fused);
      });
    }
  }
  for (const share of [0.05, 0.1, 0.2])
    add(`mech neighbours ${share} on convex trigramStop+semantic a0.6/50`, (q) => withNeighbours(base(q), q.turns, share));
  // General mechanisms on top of the RRF words+semantic k60/50 recipe.
  for (const share of [0.1, 0.2, 0.3, 0.5]) {
    add(`neighbours ${share} on RRF words+semantic k60/50`, (q) =>
      withNeighbours(rrfScores([ids_(q.lists.words), ids_(q.lists.semantic)], 60, 50), q.turns, share),
    );
  }
  add("RRF wordsPrev+semantic k60/50 (previous turn as a 0.3 column)", rrf(["wordsPrev", "semantic"], 60, 50));
  add("RRF wordsDate+semantic k60/50 (date as a 0.5 column)", rrf(["wordsDate", "semantic"], 60, 50));
  for (const boost of [0.1, 0.25, 0.5]) {
    add(`speaker named x${1 + boost} on RRF words+semantic k60/50`, (q) => {
      const fused = rrfScores([ids_(q.lists.words), ids_(q.lists.semantic)], 60, 50);
      if (q.named.length > 0) for (const [i, s] of fused) if (q.named.includes(q.turns[i].speaker)) fused.set(i, s * (1 + boost));
      return [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([i]) => i);
    });
  }

  const selected = args.only
    ? recipes.filter((r) => args.only.split("|").some((o) => r.name.startsWith(o)) || r.name.includes("protocol"))
    : recipes;
  const results = selected.map((recipe) => {
    const ranks = questions.map((q) => firstHit(recipe.rank(q), q.relevant));
    const byConversation = Object.fromEntries(ids.map((id) => [id, summarize(ranks.filter((_, i) => questions[i].conversation === id))]));
    const byCategory = Object.fromEntries([1, 2, 3, 4].map((c) => [c, summarize(ranks.filter((_, i) => questions[i].category === c))]));
    return { name: recipe.name, ...summarize(ranks), byConversation, byCategory };
  });
  const baseline = results.find((r) => r.name.includes("protocol"));
  console.log(
    `${questions.length} questions, conversations ${ids.join(", ")}; load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(`${"recipe".padEnd(64)} R@1    R@5    R@10   MRR@10  ΔR@10   ΔR@5    ΔMRR`);
  for (const r of results) {
    const d = (key) => (r[key] - baseline[key] >= 0 ? "+" : "") + (r[key] - baseline[key]).toFixed(3);
    console.log(
      `${r.name.padEnd(64)} ${[r.r1, r.r5, r.r10, r.mrr].map((x) => x.toFixed(3)).join("  ")}   ${d("r10")}  ${d("r5")}  ${d("mrr")}`,
    );
    if (args.categories) {
      for (const [c, m] of Object.entries(r.byCategory))
        console.log(`    category ${c} (n=${m.n})`.padEnd(65) + [m.r1, m.r5, m.r10, m.mrr].map((x) => x.toFixed(3)).join("  "));
    }
  }
  // Leave one conversation out: the convex weight and RRF settings chosen on four conversations, measured on the fifth.
  if (ids.length > 1) {
    for (const family of [
      "convex words+semantic",
      "convex trigram+semantic",
      "RRF words+semantic",
      "RRF words+trigram+semantic",
      "convexStop trigramStop+semantic",
      "convexStop wordsStop+semantic",
      "calibrated trigramStop+semantic",
      "calibrated wordsStop+semantic",
      "convexStop trigramStopPrev+semantic",
      "convexStop wordsStopPrev+semantic",
      "calibrated trigramStopPrev+semantic",
    ]) {
      const members = results.filter((r) => r.name.startsWith(family));
      if (members.length === 0) continue;
      const hits = [];
      const chosen = [];
      for (const held of ids) {
        const score = (r) => ids.filter((id) => id !== held).reduce((s, id) => s + r.byConversation[id].mrr * r.byConversation[id].n, 0);
        const best = members.reduce((a, b) => (score(b) > score(a) ? b : a));
        chosen.push(best.name.slice(family.length).trim());
        hits.push(best.byConversation[held]);
      }
      const n = hits.reduce((s, h) => s + h.n, 0);
      const avg = (key) => hits.reduce((s, h) => s + h[key] * h.n, 0) / n;
      console.log(
        `cross-validated ${family}: R@1 ${avg("r1").toFixed(3)} R@5 ${avg("r5").toFixed(3)} R@10 ${avg("r10").toFixed(3)} MRR@10 ${avg("mrr").toFixed(3)} (chosen: ${chosen.join(", ")})`,
      );
    }
  }
}

await main();
