// LoCoMo's development half (../shared/bench/locomo-dev/, its README gives the protocol), read as the team measures
// it: one memory per dialog turn in conversation order, and the questions of categories 1-4 with their evidence turns.
// The data is not in this repository: every reader finds it through DATA_DIR and says where to get it with dataMissing().
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** BRAIN_LOCOMO_DIR, else the team's copy in ../shared/bench/locomo-dev/ beside the repository. */
export const DATA_DIR = process.env.BRAIN_LOCOMO_DIR
  ? path.resolve(process.env.BRAIN_LOCOMO_DIR)
  : fileURLToPath(new URL("../../../../shared/bench/locomo-dev/", import.meta.url));
/** The development half; the other five conversations are held out and never read here. */
export const DEV_CONVERSATIONS = ["26", "30", "41", "42", "43"];

/** null when every development conversation is in dataDir; else one message naming the folder and where to get it. */
export function dataMissing(dataDir = DATA_DIR) {
  const absent = DEV_CONVERSATIONS.filter((id) => !existsSync(path.join(dataDir, `${id}.json`)));
  if (absent.length === 0) return null;
  return (
    `LoCoMo's development half is not in ${dataDir} (missing ${absent.map((id) => `${id}.json`).join(", ")}). ` +
    "It is not part of this repository: take conversations 26, 30, 41, 42 and 43 from data/locomo10.zip " +
    "(multimodal_dialog/locomo10_v2/) of https://github.com/snap-research/locomo, one <id>.json each, and put them " +
    "there or point BRAIN_LOCOMO_DIR at their folder"
  );
}
export const CATEGORY_NAMES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };
const EVIDENCE_ID = /D\d+:\d+/g;

/** One conversation: its turns (memory text and meta) and its answerable questions. */
export function loadConversation(id, dataDir = DATA_DIR) {
  if (!DEV_CONVERSATIONS.includes(id))
    throw new Error(`conversation ${id} is not in the development half (${DEV_CONVERSATIONS.join(", ")})`);
  const missing = dataMissing(dataDir);
  if (missing) throw new Error(missing);
  const raw = JSON.parse(readFileSync(path.join(dataDir, `${id}.json`), "utf8"));
  const sessions = Object.keys(raw)
    .map((key) => key.match(/^session_(\d+)$/))
    .filter((match) => match && Array.isArray(raw[match[0]]))
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  const turns = [];
  for (const session of sessions) {
    const date = raw[`session_${session}_date_time`];
    for (const turn of raw[`session_${session}`]) {
      const caption = turn.blip_caption ? ` [shares a photo of ${turn.blip_caption}]` : "";
      turns.push({
        diaId: turn.dia_id,
        speaker: turn.speaker,
        session,
        date,
        text: `${turn.speaker}: ${turn.text}${caption}`,
        meta: { dia_id: turn.dia_id, session, date },
      });
    }
  }
  const known = new Set(turns.map((t) => t.diaId));
  const questions = [];
  let dropped = 0;
  for (const qa of raw.qa) {
    if (!(qa.category >= 1 && qa.category <= 4)) continue;
    const evidence = [...new Set((qa.evidence ?? []).flatMap((e) => String(e).match(EVIDENCE_ID) ?? []))].filter((d) => known.has(d));
    if (evidence.length === 0) {
      dropped++;
      continue;
    }
    questions.push({ question: qa.question, category: qa.category, evidence });
  }
  return { id, speakers: [raw.speaker_a, raw.speaker_b], turns, questions, dropped };
}

/** `--conversations 26,30` → ["26", "30"]; none → the whole development half. */
export function conversationIds(arg) {
  if (!arg) return DEV_CONVERSATIONS;
  return arg
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
