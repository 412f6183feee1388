// The workspaces the in-process calibration and ranking tools read (test/eval/calibrate-score.js, rank-dump.js): the
// project set stored through openService (the real pipeline, dedup included) and LoCoMo's development conversations'
// turns straight into the same SQLite file with their vectors (stored through the service, the 2,760 turns took over
// half an hour on the shared machine; each turn is its own memory, as none is merged). Each LoCoMo workspace is asked
// its own conversation's questions and, as unrelated ones, the next conversation's.
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openService } from "../../dist/service/open.js";
import { loadModels } from "../../dist/service/models/index.js";
import { openStore } from "../../dist/service/store/open-store.js";
import { conversationIds, loadConversation } from "./locomo/dataset.js";
import { embedAll } from "./locomo/dense.js";

/**
 * `setFile`: the project set (test/eval/sets/retrieval.json by default; calibrate-score.js's --set); `splits`: its
 * splits to ask (held-out rows stay out unless named); `sample`: the LoCoMo questions to ask of a conversation (all by
 * default). Returns the open store, the models, the temp folder and the workspaces,
 * each with its questions ({ q, split, category?, answers: memory ids }).
 */
export async function storeEvalWorkspaces({
  conversations: ids,
  setFile,
  splits = ["dev", "holdout"],
  sample = (qs) => qs,
  prefix = "brain-eval-",
} = {}) {
  const set = JSON.parse(readFileSync(setFile ?? new URL("./sets/retrieval.json", import.meta.url), "utf8"));
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const dbPath = path.join(dir, "eval.db");
  const models = await loadModels({ ...process.env });
  const service = await openService({ dbPath, env: {}, models });
  const workspace = async (name) => {
    const ws = await service.createWorkspace({ name });
    const key = await service.createKey(ws.id);
    return { id: ws.id, auth: await service.authenticate(key.apiKey) };
  };
  const workspaces = [];
  const project = await workspace("project");
  const projectIds = new Map();
  for (const m of set.memories) projectIds.set(m.id, (await service.store(project.auth, { text: m.text, meta: {} }, {})).memory_id);
  const asked = (q) => splits.includes(q.split);
  workspaces.push({
    ws: project,
    set: "project",
    questions: [
      ...set.questions.filter(asked).map((q) => ({ q: q.q, split: q.split, answers: q.answers.map((id) => projectIds.get(id)) })),
      ...set.unrelated.filter(asked).map((q) => ({ q: q.q, split: q.split, answers: [] })),
    ],
  });
  const conversations = conversationIds(ids).map((id) => loadConversation(id));
  const locomoWorkspaces = [];
  for (const c of conversations) locomoWorkspaces.push(await workspace(`locomo-${c.id}`));
  await service.close();

  const embedder = models.embedder;
  const store = await openStore({ dbPath });
  const locomo = [];
  for (const [i, c] of conversations.entries()) {
    const ws = locomoWorkspaces[i];
    const vectors = await embedAll(
      embedder,
      c.turns.map((t) => t.text),
      "document",
    );
    const byDia = new Map();
    const now = Date.now();
    await store.writeInWorkspace(ws.id, async (tx) => {
      for (const [j, t] of c.turns.entries()) {
        const row = {
          workspace_id: ws.id,
          text: t.text,
          meta: t.meta,
          vector: vectors[j],
          embedder_id: embedder.id,
          importance: 5,
          temporal_type: "persistent",
          valid_until: null,
          categories: [],
          created_at: now,
        };
        byDia.set(t.diaId, (await tx.insertMemory(row)).id);
      }
    });
    locomo.push({ c, ws, byDia });
    process.stderr.write(`stored conversation ${c.id} (${c.turns.length} turns)\n`);
  }
  locomo.forEach(({ c, ws, byDia }, i) => {
    const other = locomo[(i + 1) % locomo.length].c;
    workspaces.push({
      ws,
      set: "locomo",
      conversation: c.id,
      questions: [
        ...sample(c.questions).map((q) => ({
          q: q.question,
          split: "dev",
          category: q.category,
          answers: q.evidence.map((d) => byDia.get(d)),
        })),
        ...(other === c ? [] : sample(other.questions).map((q) => ({ q: q.question, split: "dev", answers: [] }))),
      ],
    });
  });
  return { dir, store, models, embedder, workspaces };
}
