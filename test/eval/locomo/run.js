// `npm run eval:locomo`: LoCoMo's development half through a real `brain-mcp serve`, beside the protocol's baselines
// computed in the same run on the same turns (BM25Okapi over words, dense MiniLM cosine, and their RRF).
//
// Protocol (../shared/bench/locomo-dev/README.md): one workspace per conversation, one memory per turn stored in
// order with meta {dia_id, session, date}; each question of categories 1-4 asked with top_k 10 in dataset order; a
// hit at k when the memory id `store` answered for any evidence turn is among the first k (a merged turn counts
// through the memory it merged into). Merged texts are read back from the SQLite file.
//
//   node test/eval/locomo/run.js [--repo PATH] [--conversations 26,30] [--json FILE] [--rows FILE]
// (--rows: each question's first-hit rank, one JSON line each; compare two such files with compare-rows.js)
// --repo measures another checkout's build (its bin/brain-mcp.js and dist/); the baselines always use this
// checkout's embedder, so their figures stay put while the service changes. BRAIN_EMBEDDER passes to the service;
// BRAIN_DATABASE_URL runs it over PostgreSQL (an empty database: scripts/throwaway-postgres.js starts a cluster).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import pg from "pg";
import { startService } from "../service.js";
import { CATEGORY_NAMES, conversationIds, dataMissing, loadConversation } from "./dataset.js";
import { createBm25Okapi } from "./bm25.js";
import { cosines, embedAll, loadEmbedder } from "./dense.js";
import { firstHit, rankByScore, reciprocalRankFusion, summarize } from "./measures.js";

const HERE = fileURLToPath(new URL("../../../", import.meta.url));
const TOP_K = 10;
/** The protocol's fusion baseline: RRF k 60 over the first 50 of each list. */
const RRF = { k: 60, depth: 50 };
const STORE_TIMEOUT_MS = 60_000;

const { values: args } = parseArgs({
  options: {
    repo: { type: "string", default: HERE },
    conversations: { type: "string" },
    json: { type: "string" },
    rows: { type: "string" },
  },
});
const repo = path.resolve(args.repo);
const missing = dataMissing();
if (missing) {
  console.error(`eval:locomo: ${missing}`);
  process.exit(1);
}
// Temp files (the store, the vector cache) under one folder of this harness.
process.env.TMPDIR ??= path.join("/tmp", "locomo");
mkdirSync(process.env.TMPDIR, { recursive: true });

const seconds = (start) => (performance.now() - start) / 1000;
const normalizeText = (text) => text.replace(/\s+/g, " ").trim().toLowerCase();

function describeCheckout(dir) {
  const version = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).version;
  let commit = "";
  try {
    commit = execFileSync("git", ["-C", dir, "rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {}
  return `${dir} (brain-mcp ${version}${commit ? ` @ ${commit}` : ""})`;
}

/** Stores the turns in order; the memory id each turn landed in, and how each store answered. */
async function storeTurns(workspace, turns) {
  const outcomes = [];
  for (const turn of turns) {
    const res = await withTimeout(workspace.store(turn.text, turn.meta), STORE_TIMEOUT_MS, `store of ${turn.diaId}`);
    if (res.status !== 200) {
      outcomes.push({ memoryId: null, action: `rejected ${res.status}` });
      continue;
    }
    outcomes.push({ memoryId: res.body.memory_id, action: res.body.dedup?.action ?? "stored_new" });
  }
  return outcomes;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The texts the store holds now, by memory id (read-only, beside the running service; export carries no ids): from
 * PostgreSQL when BRAIN_DATABASE_URL sends the service there, else from its SQLite file.
 */
async function memoryTexts(db, workspaceId) {
  if (process.env.BRAIN_DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.BRAIN_DATABASE_URL, statement_timeout: 30_000 });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT id, text FROM memories WHERE workspace_id = $1", [workspaceId]);
      return new Map(rows.map((r) => [Number(r.id), r.text]));
    } finally {
      await client.end();
    }
  }
  const store = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const rows = store.prepare("SELECT id, text FROM memories WHERE workspace_id = ?").all(workspaceId);
    return new Map(rows.map((r) => [Number(r.id), r.text]));
  } finally {
    store.close();
  }
}

/** Merges read from the store answers and the exported texts: across speakers, and turns whose text is gone. */
function mergeReport(turns, outcomes, finalText, evidenceTurns) {
  const creator = new Map();
  let merged = 0;
  let acrossSpeakers = 0;
  const lost = [];
  turns.forEach((turn, i) => {
    const { memoryId, action } = outcomes[i];
    if (memoryId === null) return;
    if (action === "merged") {
      merged++;
      const first = creator.get(memoryId);
      if (first && first.speaker !== turn.speaker) acrossSpeakers++;
    } else if (!creator.has(memoryId)) creator.set(memoryId, turn);
  });
  turns.forEach((turn, i) => {
    const { memoryId } = outcomes[i];
    if (memoryId === null) return;
    const text = finalText.get(memoryId);
    if (text === undefined || !normalizeText(text).includes(normalizeText(turn.text))) lost.push(turn.diaId);
  });
  const rejected = outcomes.filter((o) => o.memoryId === null).length;
  return { merged, acrossSpeakers, lostTurns: lost.length, lostEvidence: lost.filter((d) => evidenceTurns.has(d)).length, rejected };
}

async function main() {
  const started = performance.now();
  const ids = conversationIds(args.conversations);
  const conversations = ids.map((id) => loadConversation(id));
  console.log(
    `LoCoMo development half, conversations ${ids.join(", ")}: service ${describeCheckout(repo)}` +
      (process.env.BRAIN_EMBEDDER ? `, BRAIN_EMBEDDER=${process.env.BRAIN_EMBEDDER}` : ""),
  );

  const embedStart = performance.now();
  const embedder = await loadEmbedder(HERE, "semantic");
  const dense = [];
  for (const c of conversations) {
    dense.push({
      turns: await embedAll(
        embedder,
        c.turns.map((t) => t.text),
        "document",
      ),
      questions: await embedAll(
        embedder,
        c.questions.map((q) => q.question),
        "query",
      ),
    });
  }
  const embedSeconds = seconds(embedStart);

  const service = await startService({}, { bin: path.join(repo, "bin/brain-mcp.js") });
  const rows = [];
  const merges = { merged: 0, acrossSpeakers: 0, lostTurns: 0, lostEvidence: 0, evidenceTurns: 0, rejected: 0 };
  let storeSeconds = 0;
  const retrieveMs = [];
  try {
    for (const [ci, conversation] of conversations.entries()) {
      const workspace = await service.workspace(`locomo-${conversation.id}`);
      const storeStart = performance.now();
      const outcomes = await storeTurns(workspace, conversation.turns);
      storeSeconds += seconds(storeStart);
      const memoryOf = new Map(conversation.turns.map((t, i) => [t.diaId, outcomes[i].memoryId]));

      const bm25 = createBm25Okapi(conversation.turns.map((t) => t.text));
      for (const [qi, q] of conversation.questions.entries()) {
        const t0 = performance.now();
        const res = await withTimeout(workspace.retrieve(q.question, TOP_K), STORE_TIMEOUT_MS, "retrieve");
        retrieveMs.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`retrieve answered ${res.status}: ${JSON.stringify(res.body)}`);
        const relevantMemories = new Set(q.evidence.map((d) => memoryOf.get(d)).filter((id) => id !== null));
        const relevantTurns = new Set(q.evidence.map((d) => conversation.turns.findIndex((t) => t.diaId === d)));
        const lexical = rankByScore(bm25.scores(q.question), RRF.depth, true);
        const semantic = rankByScore(cosines(dense[ci].questions[qi], dense[ci].turns), RRF.depth);
        rows.push({
          conversation: conversation.id,
          question: qi,
          category: q.category,
          service: firstHit(
            res.body.memories.map((m) => m.id),
            relevantMemories,
          ),
          bm25: firstHit(lexical, relevantTurns),
          dense: firstHit(semantic, relevantTurns),
          rrf: firstHit(reciprocalRankFusion([lexical, semantic], RRF), relevantTurns),
        });
      }

      const finalText = await memoryTexts(service.db, workspace.id);
      const evidenceTurns = new Set(conversation.questions.flatMap((q) => q.evidence));
      const report = mergeReport(conversation.turns, outcomes, finalText, evidenceTurns);
      for (const key of Object.keys(report)) merges[key] += report[key];
      merges.evidenceTurns += evidenceTurns.size;
      console.log(
        `  conversation ${conversation.id}: ${conversation.turns.length} turns, ${conversation.questions.length} questions` +
          ` (${conversation.dropped} without evidence dropped), ${report.merged} merged, ${report.acrossSpeakers} across speakers,` +
          ` ${report.lostEvidence} evidence turns lost`,
      );
    }
  } finally {
    await service.close();
  }

  const systems = [
    ["brain-mcp", "service"],
    ["BM25 (BM25Okapi, words)", "bm25"],
    ["dense MiniLM cosine", "dense"],
    ["RRF(BM25, MiniLM) k60/50", "rrf"],
  ];
  const table = (filter) => systems.map(([label, key]) => ({ label, ...summarize(rows.filter(filter).map((r) => r[key])) }));
  const print = (title, lines) => {
    console.log(`\n${title} (n=${lines[0].n})`);
    console.log(`${"system".padEnd(28)}  R@1    R@5    R@10   MRR@10`);
    for (const l of lines) console.log(`${l.label.padEnd(28)}  ${[l.r1, l.r5, l.r10, l.mrr].map((x) => x.toFixed(3)).join("  ")}`);
  };
  const overall = table(() => true);
  print("all categories", overall);
  const perCategory = {};
  for (const [category, name] of Object.entries(CATEGORY_NAMES)) {
    const lines = table((r) => r.category === Number(category));
    if (lines[0].n === 0) continue;
    perCategory[name] = lines;
    print(`category ${category}, ${name}`, lines);
  }
  const [svc, , , rrf] = overall;
  console.log(
    `\nagainst RRF: R@10 ${(svc.r10 - rrf.r10).toFixed(3)} (goal +0.10), R@5 ${(svc.r5 - rrf.r5).toFixed(3)} (goal +0.07),` +
      ` MRR@10 ${(svc.mrr - rrf.mrr).toFixed(3)} (goal +0.05)`,
  );
  console.log(
    `merges: ${merges.merged} turns merged, ${merges.acrossSpeakers} across speakers, ` +
      `${merges.lostEvidence} of ${merges.evidenceTurns} evidence turns lost their own text (${merges.lostTurns} turns in all), ` +
      `${merges.rejected} turns rejected`,
  );
  retrieveMs.sort((a, b) => a - b);
  const pct = (p) => retrieveMs[Math.min(retrieveMs.length - 1, Math.floor(p * retrieveMs.length))].toFixed(1);
  const turns = conversations.reduce((s, c) => s + c.turns.length, 0);
  console.log(
    `time: ${seconds(started).toFixed(1)} s in all; store ${storeSeconds.toFixed(1)} s (${(turns / storeSeconds).toFixed(0)} turns/s);` +
      ` retrieve over HTTP p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; baseline embedding ${embedSeconds.toFixed(1)} s; load ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
  );
  // One line per question (its conversation, index, category and the rank of the first evidence memory, or null):
  // two runs compared question by question, for example the same build over SQLite and over PostgreSQL.
  if (args.rows) writeFileSync(args.rows, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  if (args.json) writeFileSync(args.json, JSON.stringify({ conversations: ids, overall, perCategory, merges, repo }, null, 2));
}

await main();
