// Dedup on LoCoMo's development half (../shared/bench/locomo-dev/, protocol in its README): every dialog turn stored
// through the real write pipeline (openService from dist/ over a temporary SQLite file, the offline models), one
// workspace per conversation, in order. Counts merges, merges across speakers and evidence turns whose own text no
// longer exists. Usage: npm run build && node test/eval/locomo-dedup.js [--embedder hybrid|semantic] [--show]
// [--threshold t] (t overrides the embedder's calibrated dedup threshold, for calibration only).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { createOfflineEmbedder } from "../../dist/service/models/embed/index.js";
import { createOfflineJudge } from "../../dist/service/models/judge/index.js";
import { openService } from "../../dist/service/open.js";

const { values: args } = parseArgs({
  options: {
    embedder: { type: "string", default: "hybrid" },
    threshold: { type: "string" },
    show: { type: "boolean", default: false },
    data: { type: "string", default: new URL("../../../shared/bench/locomo-dev/", import.meta.url).pathname },
  },
});
const CONVERSATIONS = ["26", "30", "41", "42", "43"];

/** The protocol's turns of one conversation, in order: text, meta and speaker. */
function turnsOf(conversation) {
  const turns = [];
  for (let n = 1; conversation[`session_${n}`] !== undefined || conversation[`session_${n}_date_time`] !== undefined; n++) {
    for (const turn of conversation[`session_${n}`] ?? []) {
      const caption = turn.blip_caption ? ` [shares a photo of ${turn.blip_caption}]` : "";
      turns.push({
        diaId: turn.dia_id,
        speaker: turn.speaker,
        text: `${turn.speaker}: ${turn.text}${caption}`,
        meta: { dia_id: turn.dia_id, session: n, date: conversation[`session_${n}_date_time`] },
      });
    }
  }
  return turns;
}

/** Evidence turn ids of the recall questions (categories 1-4). */
function evidenceOf(qa) {
  const ids = new Set();
  for (const q of qa) {
    if (q.category === 5) continue;
    for (const entry of q.evidence ?? []) for (const id of String(entry).match(/D\d+:\d+/g) ?? []) ids.add(id);
  }
  return ids;
}

const embedder = createOfflineEmbedder(args.embedder);
await embedder.load();
if (args.threshold !== undefined) embedder.dedupThreshold = Number(args.threshold);
// Counts the texts embedded beyond each turn's own: the sentences dedup measures before it merges.
const embedTexts = embedder.embed.bind(embedder);
let textsEmbedded = 0;
embedder.embed = (texts, purpose) => ((textsEmbedded += texts.length), embedTexts(texts, purpose));
const judge = createOfflineJudge({ embedderId: embedder.id });
await judge.load();
const dir = mkdtempSync(join(tmpdir(), "locomo-dedup-"));
const dbPath = join(dir, "locomo.db");
const service = await openService({ dbPath, env: {}, models: { embedder, judge } });

const totals = {
  turns: 0,
  rejected: 0,
  merges: 0,
  crossSpeaker: 0,
  groups: 0,
  mixedGroups: 0,
  evidence: 0,
  evidenceLost: 0,
  textsReplaced: 0,
};
const shown = [];
const started = Date.now();
try {
  const stored = [];
  for (const name of CONVERSATIONS) {
    const conversation = JSON.parse(readFileSync(join(args.data, `${name}.json`), "utf8"));
    const ws = await service.createWorkspace({ name: `locomo-${name}` });
    const auth = await service.authenticate((await service.createKey(ws.id)).apiKey);
    const turns = turnsOf(conversation);
    for (const turn of turns) {
      totals.turns++;
      try {
        const answer = await service.store(auth, { text: turn.text, meta: turn.meta }, {});
        stored.push({ ...turn, conversation: name, memoryId: answer.memory_id, merged: answer.dedup.action === "merged" });
      } catch (error) {
        if (error?.code !== "pii_detected") throw error;
        totals.rejected++;
      }
    }
    stored.push({ evidence: evidenceOf(conversation.qa), conversation: name });
  }
  await service.close();

  const db = new Database(dbPath, { readonly: true });
  const textOf = new Map(
    db
      .prepare("SELECT id, text FROM memories")
      .all()
      .map((row) => [row.id, row.text]),
  );
  db.close();
  const byMemory = new Map();
  const evidence = new Map(stored.filter((s) => s.evidence).map((s) => [s.conversation, s.evidence]));
  for (const turn of stored.filter((s) => s.diaId)) {
    if (turn.merged) totals.merges++;
    const group = byMemory.get(turn.memoryId) ?? [];
    if (turn.merged && group.some((t) => t.speaker !== turn.speaker)) totals.crossSpeaker++;
    group.push(turn);
    byMemory.set(turn.memoryId, group);
    // Lost: the memory that answers for the turn no longer holds the turn's own text, word for word.
    const lost = !textOf.get(turn.memoryId).includes(turn.text);
    if (lost) totals.textsReplaced++;
    if (evidence.get(turn.conversation).has(turn.diaId)) {
      totals.evidence++;
      if (lost) totals.evidenceLost++;
    }
  }
  for (const [id, group] of byMemory) {
    if (group.length < 2) continue;
    totals.groups++;
    if (new Set(group.map((t) => t.speaker)).size > 1) totals.mixedGroups++;
    shown.push({ id, kept: textOf.get(id), turns: group.map((t) => `${t.diaId} ${t.text}`) });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (args.show) for (const g of shown) console.log(`memory ${g.id}: ${g.kept}\n  ${g.turns.join("\n  ")}\n`);
const seconds = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `${embedder.id} threshold ${embedder.dedupThreshold}: ${totals.turns} turns (${totals.rejected} rejected), ` +
    `${totals.merges} merged into ${totals.groups} groups (${totals.mixedGroups} mixing speakers), ` +
    `${totals.crossSpeaker} merges across speakers, ${totals.evidenceLost} of ${totals.evidence} evidence turns lost their text ` +
    `(${totals.textsReplaced} turns in all are kept only as the restatement that absorbed them) ` +
    `(${seconds} s; ${textsEmbedded - totals.turns} sentences embedded to check merges)`,
);
