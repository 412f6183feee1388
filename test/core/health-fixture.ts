// A workspace crafted around every edge of health's signals, for both stores: each memory sits on one side of one
// threshold (equal to the threshold does not count), plus texts that pin "characters" to code points.
import { DAY_MS } from "../../src/service/time.js";
import type { MemoryStore, NewMemory } from "../../src/service/store/types.js";

export const HEALTH_NOW = Date.UTC(2025, 5, 1, 12);
/** The embedder the crafted memories come from (the test services' own), and one other. */
export const FIXTURE_EMBEDDER = "test-bow/1";
const days = (n: number) => HEALTH_NOW - n * DAY_MS;
const EMOJI = "\u{1F600}"; // one code point, two UTF-16 units

interface Crafted {
  /** Kept in meta as `crafted` (ids are the store's). */
  name: string;
  text?: string;
  created: number;
  validUntil?: number;
  /** Retrieved once at this time. */
  accessed?: number;
  /** Embedded by this model instead of FIXTURE_EMBEDDER. */
  embedder?: string;
}

const CRAFTED: Crafted[] = [
  { name: "mem_untouched", created: days(100) }, // untouched + never retrieved
  { name: "mem_untouched_edge", created: days(90) }, // exactly 90 days: not untouched; never retrieved
  { name: "mem_accessed_old", created: days(200), accessed: days(91) }, // untouched (last access 91 days ago)
  { name: "mem_accessed_recent", created: days(200), accessed: days(5) }, // nothing
  { name: "mem_expired", created: days(2), validUntil: days(1) }, // expired
  { name: "mem_expired_untouched", created: days(100), validUntil: days(50) }, // expired (not also untouched) + never retrieved
  { name: "mem_ends_now", created: days(1), validUntil: HEALTH_NOW }, // valid_until = now: not expired
  { name: "mem_future", created: days(1), validUntil: days(-10) }, // nothing
  { name: "mem_new_edge", created: days(7) }, // exactly 7 days old: not never-retrieved
  { name: "mem_1000", created: days(1), text: "a".repeat(1000) }, // not overlong
  { name: "mem_1001", created: days(1), text: "a".repeat(1001) }, // overlong
  // 1,000 characters but 1,001 UTF-16 units: NOT overlong (characters are code points).
  { name: "mem_emoji_1000", created: days(1), text: "a".repeat(999) + EMOJI },
  // 1,001 characters, the last astral: overlong.
  { name: "mem_emoji_1001", created: days(1), text: "a".repeat(1000) + EMOJI },
  // 600 astral characters: 1,200 UTF-16 units, 600 characters: not overlong.
  { name: "mem_emoji_600", created: days(1), text: EMOJI.repeat(600) },
  { name: "mem_accents_1001", created: days(1), text: "é".repeat(1001) }, // 2 UTF-8 bytes each, 1,001 characters: overlong
  { name: "mem_old_model", created: days(1), embedder: "older-model/1" }, // needs re-embedding
];

/** What healthCounts must answer for the crafted workspace at HEALTH_NOW. */
export const EXPECTED_COUNTS = { total: 16, expired: 2, untouched: 2, overlong: 3, neverRetrieved: 3, otherModel: 1 };
/** healthCounts of a workspace with no memories. */
export const EMPTY_COUNTS = { total: 0, expired: 0, untouched: 0, overlong: 0, neverRetrieved: 0, otherModel: 0 };

function newMemory(workspaceId: number, m: Crafted): NewMemory {
  return {
    workspace_id: workspaceId,
    text: m.text ?? `memory ${m.name}`,
    meta: { crafted: m.name },
    vector: new Float32Array([1, 0, 0]),
    embedder_id: m.embedder ?? FIXTURE_EMBEDDER,
    importance: 5,
    temporal_type: m.validUntil === undefined ? "persistent" : "time_bound",
    valid_until: m.validUntil ?? null,
    categories: ["work", "project"],
    created_at: m.created,
  };
}

/** Fills `workspaceId` (which must exist) with the crafted memories; returns the id the store gave each name. */
export async function seedHealthWorkspace(store: MemoryStore, workspaceId: number): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  await store.writeInWorkspace(workspaceId, async (tx) => {
    for (const m of CRAFTED) ids.set(m.name, (await tx.insertMemory(newMemory(workspaceId, m))).id);
  });
  for (const m of CRAFTED) if (m.accessed !== undefined) await store.touchMemories(workspaceId, [ids.get(m.name)!], m.accessed);
  return ids;
}
