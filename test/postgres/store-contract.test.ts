// One contract, both stores: the same calls against a SQLite file and a real PostgreSQL give the same orders and
// results (lists, lexical search, deletion and the revs the vector caches read).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/service/store/postgres/index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import { FORGOTTEN_EMBEDDER, type MemoryStore, type NewMemory } from "../../src/service/store/types.js";
import { searchTerms } from "../../src/service/retrieval/search-terms.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

const T0 = Date.UTC(2025, 0, 1);

function memory(workspaceId: number, text: string, vector: number[], createdAt = T0): NewMemory {
  return {
    workspace_id: workspaceId,
    text,
    meta: {},
    vector: new Float32Array(vector),
    embedder_id: "emb",
    importance: 5,
    temporal_type: "persistent",
    valid_until: null,
    categories: ["personal", "profile"],
    created_at: createdAt,
  };
}

/** The ids the lexical index finds, best first. */
async function searchIds(store: MemoryStore, workspaceId: number, terms: readonly string[], limit = 10): Promise<number[]> {
  return (await store.searchText(workspaceId, terms, limit)).map((m) => m.id);
}

async function newWorkspace(store: MemoryStore, name: string): Promise<number> {
  return (await store.insertWorkspace({ name, plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
}

const stores: { name: string; open: () => Promise<{ store: MemoryStore; close: () => Promise<void> }> }[] = [];
let cluster: PgCluster | undefined;
const dir = mkdtempSync(join(tmpdir(), "brain-contract-"));

stores.push({
  name: "SQLite",
  open: async () => {
    const store = openSqliteStore(join(dir, `store-${stores.length}-${Math.random()}.db`));
    return { store, close: () => store.close() };
  },
});
if (canStartPostgres()) {
  stores.push({
    name: "PostgreSQL",
    open: async () => {
      cluster ??= await startPostgres();
      const store = await openPostgresStore(await cluster.createDatabase());
      return { store, close: () => store.close() };
    },
  });
}

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(stores)("the store contract on $name", ({ open }) => {
  let store: MemoryStore;
  let close: () => Promise<void>;
  let ws: number;
  let other: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ({ store, close } = await open());
    ws = await newWorkspace(store, "contract");
    other = await newWorkspace(store, "other");
    const texts: [string, string, number[], number][] = [
      ["sweden", "Caroline: a gift from my grandma in my home country, Sweden.", [1, 0, 0], T0 + 3],
      ["country", "Melanie: we drove through the country on the weekend.", [0, 1, 0], T0 + 1],
      ["pottery", "Melanie: I finished a pottery class yesterday; the bowl is blue.", [0, 0, 1], T0 + 2],
      ["café", "Caroline: the café on Brunnsgatan serves the best kanelbullar.", [0.6, 0.8, 0], T0],
    ];
    await store.writeInWorkspace(ws, async (tx) => {
      for (const [key, text, vector, at] of texts) ids[key] = (await tx.insertMemory(memory(ws, text, vector, at))).id;
    });
    await store.writeInWorkspace(other, async (tx) => {
      ids.elsewhere = (await tx.insertMemory(memory(other, "Grandma lives in Sweden too.", [1, 0, 0]))).id;
    });
  });

  afterAll(async () => close?.());

  it("lists a workspace's memories in the order they were written (rev), whatever their creation times", async () => {
    expect((await store.listMemories(ws)).map((m) => m.id)).toEqual([ids.sweden, ids.country, ids.pottery, ids["café"]]);
  });

  it("finds memories by their words through the lexical index, the rarer word first, only in the workspace asked", async () => {
    const matches = await store.searchText(ws, searchTerms("What country is Caroline's grandma from?"), 10);
    const found = matches.map((m) => m.id);
    expect(matches.every((m, i) => typeof m.score === "number" && m.score > 0 && (i === 0 || m.score <= matches[i - 1]!.score))).toBe(true);
    expect(found[0]).toBe(ids.sweden); // grandma + country + caroline
    expect(new Set(found)).toEqual(new Set([ids.sweden, ids.country, ids["café"]]));
    expect(found).not.toContain(ids.elsewhere);
    expect(await searchIds(store, ws, searchTerms("pottery"), 10)).toEqual([ids.pottery]);
    expect(await searchIds(store, ws, searchTerms("the of and"), 10)).toEqual([]);
    expect(await searchIds(store, ws, searchTerms("grandma"), 0)).toEqual([]);
  });

  it("carries the whole query's weight on every match, a word no memory holds counting as the rarest", async () => {
    const matches = await store.searchText(ws, ["grandma", "sweden"], 10);
    expect(matches.map((m) => m.id)).toEqual([ids.sweden]);
    // Both words are in the one memory found: the memory holds the whole query.
    expect(matches[0]!.queryWeight).toBeCloseTo(matches[0]!.score, 9);
    const withUnknown = await store.searchText(ws, ["grandma", "sweden", "zeppelin"], 10);
    const rarest = Math.log(1 + (4 + 0.5) / 0.5); // 4 memories, none holding "zeppelin"
    expect(withUnknown[0]!.score).toBeCloseTo(matches[0]!.score, 9);
    expect(withUnknown[0]!.queryWeight).toBeCloseTo(matches[0]!.queryWeight + rarest, 9);
  });

  it("names the query words each match holds, with how many memories hold each, and the workspace's size", async () => {
    const matches = await store.searchText(ws, ["grandma", "caroline", "zeppelin"], 10);
    const byId = new Map(matches.map((m) => [m.id, m]));
    expect(byId.get(ids.sweden!)).toMatchObject({ total: 4, terms: { grandma: 1, caroline: 2 } });
    expect(byId.get(ids["café"]!)).toMatchObject({ total: 4, terms: { caroline: 2 } });
    expect(Object.keys(byId.get(ids["café"]!)!.terms)).toEqual(["caroline"]);
  });

  it("finds a word at the start of a longer word (SQLite: anywhere inside it)", async () => {
    expect(await searchIds(store, ws, ["potter"], 10)).toEqual([ids.pottery]);
    expect(await searchIds(store, ws, ["kanelbull"], 10)).toEqual([ids["café"]]);
  });

  it("leaves out query words of fewer than three characters on every store: no match, no weight", async () => {
    // SQLite's trigram index cannot look them up; PostgreSQL could, and ranked queries with a number or "my" apart.
    const withShort = await store.searchText(ws, ["my", "grandma", "7"], 10);
    const without = await store.searchText(ws, ["grandma"], 10);
    expect(withShort.map((m) => m.id)).toEqual([ids.sweden]);
    expect(withShort).toEqual(without);
    expect(await searchIds(store, ws, ["my", "we"], 10)).toEqual([]);
    if (store.searchTextWithVectorsSince) {
      const since = { sinceRev: 0, codesFor: "emb", limit: 10 };
      const read = await store.searchTextWithVectorsSince(ws, ["my", "grandma"], 10, since);
      expect(read.matches).toEqual(without);
      expect((await store.searchTextWithVectorsSince(ws, ["my"], 10, since)).matches).toEqual([]);
    }
  });

  it("finds a word whatever its case and diacritics, in any Latin script (PostgreSQL: also in a C-locale database)", async () => {
    const fold = await newWorkspace(store, "fold");
    let id = 0;
    await store.writeInWorkspace(fold, async (tx) => {
      id = (await tx.insertMemory(memory(fold, "Zoë met the ØRSTED team at the ÉCOLE in Łódź, then Señor Müller.", [1, 0, 0]))).id;
    });
    for (const word of ["zoe", "zoë", "ørsted", "ecole", "école", "łodz", "łódź", "senor", "muller", "müller"]) {
      expect(await searchIds(store, fold, [word], 10), word).toEqual([id]);
    }
    // Letters that are not a base letter with a mark stay themselves, on both stores: "ø" is not "o", "ł" not "l".
    expect(await searchIds(store, fold, ["orsted"], 10)).toEqual([]);
    expect(await searchIds(store, fold, ["lodz"], 10)).toEqual([]);
  });

  it("matches names and numbers as written, with no stemming", async () => {
    expect(await searchIds(store, ws, ["brunnsgatan"], 10)).toEqual([ids["café"]]);
    expect(await searchIds(store, ws, ["kanelbullar"], 10)).toEqual([ids["café"]]);
    expect(await searchIds(store, ws, ["kanelbulle"], 10)).toEqual([]);
  });

  it("keeps the lexical index in step with a merge's new text in the same transaction", async () => {
    await store.writeInWorkspace(ws, (tx) =>
      tx.updateMemory(ids.pottery!, { text: "Melanie: I finished a ceramics class yesterday." }, T0 + 10),
    );
    expect(await searchIds(store, ws, ["pottery"], 10)).toEqual([]);
    expect(await searchIds(store, ws, ["ceramics"], 10)).toEqual([ids.pottery]);
  });

  it("re-reads float vectors by id for re-scoring, skipping unknown ids and other workspaces' memories", async () => {
    const rows = await store.vectorsOf(ws, [ids.sweden!, ids.elsewhere!, 999_999]);
    expect(rows.map((r) => [r.id, [...r.vector]])).toEqual([[ids.sweden, [1, 0, 0]]]);
  });

  it("reads records with their float vectors in one call, as vectorsOf and getMemories give them, inside a write too", async () => {
    const asked = [ids.sweden!, ids["café"]!, ids.elsewhere!, 999_999];
    const byId = <T extends { id: number }>(xs: T[]) => [...xs].sort((a, b) => a.id - b.id);
    const both = await store.memoriesWithVectors(ws, asked);
    expect(byId(both.map((r) => r.record))).toEqual(byId(await store.getMemories(ws, asked)));
    expect(byId(both.map((r) => r.vector))).toEqual(byId(await store.vectorsOf(ws, asked)));
    expect(both.every((r) => r.record.id === r.vector.id)).toBe(true);
    expect(byId(both.map((r) => r.record)).map((m) => m.id)).toEqual([ids.sweden, ids["café"]].sort((a, b) => a! - b!));
    const inTx = await store.writeInWorkspace(ws, (tx) => tx.memoriesWithVectors(asked));
    expect(byId(inTx.map((r) => r.record))).toEqual(byId(both.map((r) => r.record)));
    expect(await store.memoriesWithVectors(ws, [])).toEqual([]);
  });

  it("finds a key and takes a token from its bucket in one step; nothing for an unknown or revoked key", async () => {
    const keyId = await store.insertKey({ workspace_id: other, key_hash: "contract-hash", prefix: "svc_ws_c", created_at: T0 });
    const take = () => store.findKeyTakingToken("contract-hash", 1, 2, T0 + 1_000);
    const first = await take();
    expect(first).toMatchObject({ keyId, prefix: "svc_ws_c", keyHash: "contract-hash", rate: { allowed: true, retryAfterSeconds: 0 } });
    expect(first!.workspace).toEqual(await store.getWorkspace(other));
    expect((await take())!.rate).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect((await take())!.rate).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // the same bucket as takeRateToken's: a second later one token is back
    expect(await store.takeRateToken(keyId, 1, 2, T0 + 2_000)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect((await store.findKeyTakingToken("contract-hash", 1, 2, T0 + 2_000))!.rate.allowed).toBe(false);
    expect(await store.findKeyTakingToken("no-such-hash", 1, 2, T0)).toBeNull();
    await store.revokeKey(keyId, T0 + 3_000);
    expect(await store.findKeyTakingToken("contract-hash", 1, 2, T0 + 60_000)).toBeNull();
  });

  it("forgets memories everywhere: row, vector, lexical entry and idempotent answer; a tombstone tells the caches", async () => {
    await store.writeInWorkspace(ws, (tx) =>
      tx.putIdempotency(
        {
          workspace_id: ws,
          key: "k1",
          request_hash: "h",
          response: { status: "ok", memory_id: ids.country, dedup: { action: "stored_new", existing_id: null } },
          created_at: T0,
        },
        0,
      ),
    );
    await store.writeInWorkspace(ws, (tx) =>
      tx.putIdempotency(
        {
          workspace_id: ws,
          key: "k2",
          request_hash: "h",
          response: { status: "ok", memory_id: ids.sweden, dedup: { action: "stored_new", existing_id: null } },
          created_at: T0,
        },
        0,
      ),
    );
    const before = Math.max(...(await store.listMemories(ws)).map((m) => m.rev));
    expect(await store.deleteMemories(ws, [ids.country!, ids.elsewhere!, 424242])).toEqual([ids.country]);
    expect((await store.listMemories(ws)).map((m) => m.id)).not.toContain(ids.country);
    expect(await store.getMemories(other, [ids.elsewhere!])).toHaveLength(1); // another workspace's id is not touched
    expect(await store.vectorsOf(ws, [ids.country!])).toEqual([]);
    expect(await searchIds(store, ws, ["drove"], 10)).toEqual([]);
    expect(await store.getIdempotency(ws, "k1", 0)).toBeNull();
    expect(await store.getIdempotency(ws, "k2", 0)).not.toBeNull();
    // the vector caches hear of it through the rev stream: a tombstone with the next rev and no vector
    const tombstones = await store.vectorsSince(ws, before);
    expect(tombstones.map((t) => [t.id, t.rev, t.embedder_id, t.vector.length])).toEqual([
      [ids.country, before + 1, FORGOTTEN_EMBEDDER, 0],
    ]);
    expect(await store.deleteMemories(ws, [ids.country!])).toEqual([]);
  });

  it("never hands a forgotten memory's rev out again, so a cache that saw it still sees the next write", async () => {
    const last = (await store.listMemories(ws)).at(-1)!;
    await store.deleteMemories(ws, [last.id]);
    const forgottenAt = (await store.vectorsSince(ws, last.rev)).at(-1)!.rev;
    const next = await store.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "a new memory after forgetting", [0, 1, 0])));
    expect(next.rev).toBeGreaterThan(forgottenAt);
    expect((await store.vectorsSince(ws, forgottenAt)).map((v) => v.id)).toEqual([next.id]);
  });

  it("counts health signals with one statement text for both stores", async () => {
    const counts = await store.healthCounts(ws, {
      nowMs: T0 + 1000,
      untouchedBeforeMs: T0 - 1,
      neverRetrievedBeforeMs: T0 + 100,
      overlongChars: 50,
      embedderId: "emb",
    });
    expect(counts).toEqual({ total: 3, expired: 0, untouched: 0, overlong: 2, neverRetrieved: 3, otherModel: 0 });
  });
});
