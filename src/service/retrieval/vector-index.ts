// An in-process vector index per workspace that holds only int8 codes (a quarter of the bytes of float rows; the
// scan is memory-bandwidth bound): an int8 SIMD scan of every row with a proven error bound per row keeps the few rows
// that may be among the best, and their float vectors, re-read from the store, give exact cosines; so every answer
// equals a full float scan's (dedup depends on finding the true nearest neighbour). Vectors are unit length, so the
// dot product is the cosine. Kept current incrementally from the store by `rev` (writes and deletions made through
// other processes are seen on the next refresh); the indexes of a process share one memory budget, least recently
// used workspace out first.
import type { RevOf, StoredVectorSnapshot, VectorRecord, VectorSnapshotHeader } from "../store/types.js";
import { comparableVector } from "./derived-vectors.js";
import { IdSlots } from "./id-slots.js";
import { CODES_HEADER_BYTES, Int8Kernel, codeStrideFor, quantize } from "./int8-kernel.js";
import { SNAPSHOT_CHUNK_ROWS, newSnapshotChunk, readSnapshotChunk } from "./vector-snapshot.js";

export interface Match {
  id: number;
  cosine: number;
}

/**
 * Where an index reads what it does not keep: the store, or a write transaction (both have these reads). A forgotten
 * memory comes through vectorsSince as a tombstone (../store/types.ts FORGOTTEN_EMBEDDER), which no index compares.
 */
export interface VectorSource {
  /** `codesFor`: rows of this embedder that have stored codes come with `codes` and no floats. */
  vectorsSince(sinceRev: number, limit?: number, codesFor?: string): Promise<VectorRecord[]>;
  vectorsOf(ids: readonly number[]): Promise<VectorRecord[]>;
  /** The workspace's stored snapshot of this model's index (outside a write transaction only). */
  readSnapshot?(embedderId: string): Promise<StoredVectorSnapshot | null>;
  writeSnapshot?(header: VectorSnapshotHeader, chunks: Iterable<Uint8Array>): Promise<boolean>;
}

/** Reads the float rows of `ids` (the exact re-scoring's input). */
export type FloatRows = (ids: readonly number[]) => Promise<VectorRecord[]>;

/** Added to every error bound to cover float rounding in the bound's own arithmetic. */
const ROUNDING_SLACK = 1e-6;

function dot(a: Float32Array, b: Float32Array, dimensions: number): number {
  let sum = 0;
  for (let d = 0; d < dimensions; d++) sum += a[d]! * b[d]!;
  return sum;
}

/** The k-th largest of values[0..n) (k >= 1), reordering a scratch copy (quickselect). */
function kthLargest(values: Float64Array, n: number, k: number): number {
  const a = values.slice(0, n);
  let lo = 0;
  let hi = n - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target]!;
}

/** Rows per page while a read catches a workspace's index up. */
export const REFRESH_PAGE_ROWS = 5_000;

/** The rows a cached index lacks, as a read asks for them beside its own (VectorIndexes.readAhead). */
export interface ReadAhead {
  index: WorkspaceIndex;
  sinceRev: number;
  codesFor: string;
  limit: number;
}

/**
 * Rows an index applies row by row (from vectorsSince) before it stores a new snapshot of itself: a load then reads
 * the snapshot in bulk and at most about this many rows one by one (5,000 rows one by one cost ~50 ms).
 */
export const SNAPSHOT_AFTER_ROWS = 5_000;

export class WorkspaceIndex {
  /** Highest rev applied; the next refresh asks the store for rows above it. */
  maxRev = 0;
  /** Slots used (live or dead). */
  count = 0;
  ids: (number | null)[] = [];
  /** The rev that last wrote each slot. */
  revs: number[] = [];
  /** Bytes per int8 row. */
  readonly codeStride: number;
  /** Rows applied one by one since the index was loaded from, or stored as, a snapshot. */
  rowsSinceSnapshot = 0;
  private slots = new IdSlots();
  private kernel: Int8Kernel;
  /** Per slot: the int8 scale, and scale · Σ|code| / 2 (the row's share of the error bound). */
  private scales = new Float64Array(64);
  private halfL1 = new Float64Array(64);
  // Scratch for one scan, reused across calls.
  private lower = new Float64Array(64);
  private upper = new Float64Array(64);
  private picked = new Int32Array(64);

  constructor(
    readonly dimensions: number,
    readonly embedderId: string,
  ) {
    this.codeStride = codeStrideFor(dimensions);
    this.kernel = new Int8Kernel(this.codeStride * 64);
  }

  /** Live memories in the index. */
  get size(): number {
    return this.slots.size;
  }

  /** The rev that wrote this memory's row, or undefined when the index does not hold it. */
  revOf(id: number): number | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.revs[slot];
  }

  /** What the index holds in memory: int8 rows with their scan scratch, and per-slot numbers (about 40 bytes). */
  get bytes(): number {
    return this.kernel.bytes.length + this.scales.length * 40 + this.slots.size * 40;
  }

  /** Applies rows in rev order; rows already seen (rev <= maxRev) are skipped, so concurrent refreshes are safe. */
  apply(records: readonly VectorRecord[]): void {
    for (const r of records) {
      if (r.rev <= this.maxRev) continue;
      this.maxRev = r.rev;
      this.rowsSinceSnapshot++;
      const existing = this.slots.get(r.id);
      if (r.codes && r.embedder_id === this.embedderId && r.codes.length === CODES_HEADER_BYTES + this.dimensions) {
        const slot = existing ?? this.append(r.id);
        this.writeCodes(slot, r.codes);
        this.revs[slot] = r.rev;
        continue;
      }
      // Vectors of another model cannot be compared; they return once re-embedded (with a new rev).
      const vector = comparableVector(r, this.embedderId, this.dimensions);
      if (!vector) {
        if (existing !== undefined) this.remove(r.id, existing);
        continue;
      }
      const slot = existing ?? this.append(r.id);
      this.write(slot, vector);
      this.revs[slot] = r.rev;
    }
  }

  /**
   * The `limit` most similar memories with cosine >= floor, best first (ties by id): the int8 screen picks the rows
   * that may qualify, `floats` re-reads them, and their exact cosines decide. A row the store no longer holds (forgotten
   * meanwhile) or holds under another model is left out.
   */
  async search(query: Float32Array, floor: number, limit: number, floats: FloatRows): Promise<Match[]> {
    if (this.count === 0 || limit <= 0) return [];
    const n = this.screen(query, floor, limit);
    const ids: number[] = [];
    for (let c = 0; c < n; c++) ids.push(this.ids[this.picked[c]!]!);
    return this.exact(query, ids, floor, limit, floats);
  }

  /** The single most similar memory, or null for an empty index. */
  async nearest(query: Float32Array, floats: FloatRows): Promise<Match | null> {
    return (await this.search(query, -Infinity, 1, floats))[0] ?? null;
  }

  /** Exact cosines of these memories (any the store no longer holds under this model are left out), best first. */
  cosinesOf(query: Float32Array, ids: readonly number[], floats: FloatRows): Promise<Match[]> {
    return this.exact(query, ids, -Infinity, ids.length, floats);
  }

  /** Exact cosines of `ids` from their float rows, those >= floor, best first, at most `limit`. */
  private async exact(query: Float32Array, ids: readonly number[], floor: number, limit: number, floats: FloatRows): Promise<Match[]> {
    if (ids.length === 0) return [];
    const hits: Match[] = [];
    for (const row of await floats(ids)) {
      const vector = comparableVector(row, this.embedderId, this.dimensions);
      if (!vector) continue;
      const cosine = dot(query, vector, this.dimensions);
      if (cosine >= floor) hits.push({ id: row.id, cosine });
    }
    hits.sort((a, b) => b.cosine - a.cosine || a.id - b.id);
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }

  /**
   * Pairs with cosine >= threshold among the `limit` most recently written memories (highest rev), by int8 scans of
   * each row against the rows after it and exact cosines (from `floats`) where the bound allows a pair to reach the
   * threshold. `visit`, when given, hears each pair's memory ids and cosine (the dashboard's list of duplicates).
   */
  async pairsAbove(
    threshold: number,
    limit: number,
    floats: FloatRows,
    visit?: (a: number, b: number, cosine: number) => void,
  ): Promise<number> {
    const live: number[] = [];
    for (let s = 0; s < this.count; s++) if (this.ids[s] !== null) live.push(s);
    const window = live.length > limit ? live.sort((a, b) => this.revs[b]! - this.revs[a]!).slice(0, limit) : live;
    const n = window.length;
    if (n < 2) return 0;
    const cs = this.codeStride;
    // Copy the window's codes contiguously after the index's rows; results follow them.
    const at = this.count * cs;
    const outAt = at + n * cs;
    this.kernel.ensure(outAt + 4 * n);
    const bytes = this.kernel.bytes;
    for (let i = 0; i < n; i++) bytes.copyWithin(at + i * cs, window[i]! * cs, (window[i]! + 1) * cs);
    const quarterDims = this.dimensions / 4;
    const candidates: [number, number][] = [];
    for (let i = 0; i < n - 1; i++) {
      const si = window[i]!;
      const scaleI = this.scales[si]!;
      const dots = this.kernel.scan(at + (i + 1) * cs, n - 1 - i, cs, at + i * cs, outAt);
      for (let j = 0; j < dots.length; j++) {
        const sj = window[i + 1 + j]!;
        const scaleJ = this.scales[sj]!;
        const approx = dots[j]! * scaleI * scaleJ;
        const bound = scaleJ * this.halfL1[si]! + scaleI * this.halfL1[sj]! + scaleI * scaleJ * quarterDims + ROUNDING_SLACK;
        if (approx + bound >= threshold) candidates.push([this.ids[si]!, this.ids[sj]!]);
      }
    }
    if (candidates.length === 0) return 0;
    const rows = new Map<number, Float32Array | null>();
    for (const r of await floats([...new Set(candidates.flat())])) rows.set(r.id, comparableVector(r, this.embedderId, this.dimensions));
    let pairs = 0;
    for (const [a, b] of candidates) {
      const va = rows.get(a);
      const vb = rows.get(b);
      if (!va || !vb) continue;
      const cosine = dot(va, vb, this.dimensions);
      if (cosine < threshold) continue;
      pairs++;
      visit?.(a, b, cosine);
    }
    return pairs;
  }

  /**
   * First pass: puts into `picked` (slot order) every live slot that may be among the `limit` best with cosine >=
   * floor, judged by int8 dot products and their error bounds; returns how many.
   */
  private screen(query: Float32Array, floor: number, limit: number): number {
    const cs = this.codeStride;
    const queryAt = this.count * cs;
    const outAt = queryAt + cs;
    this.kernel.ensure(outAt + 4 * this.count);
    const bytes = this.kernel.bytes;
    bytes.fill(0, queryAt, outAt);
    const q = quantize(query, this.dimensions, bytes, queryAt);
    const dots = this.kernel.scan(0, this.count, cs, queryAt, outAt);
    // |q·r − approx| ≤ sq·sr·(Σ|cq|/2 + Σ|cr|/2 + d/4): both rounding errors are at most half a step per dimension.
    const queryTerm = q.scale * (q.codeL1 / 2 + this.dimensions / 4);
    let n = 0;
    for (let s = 0; s < this.count; s++) {
      if (this.ids[s] === null) continue;
      const scale = this.scales[s]!;
      const approx = dots[s]! * scale * q.scale;
      const bound = scale * queryTerm + q.scale * this.halfL1[s]! + ROUNDING_SLACK;
      if (approx + bound < floor) continue;
      this.lower[n] = approx - bound;
      this.upper[n] = approx + bound;
      this.picked[n++] = s;
    }
    if (n <= limit) return n;
    // A slot whose upper bound is below the limit-th best lower bound has `limit` better slots above the floor.
    const cut = kthLargest(this.lower, n, limit);
    let kept = 0;
    for (let c = 0; c < n; c++) if (this.upper[c]! >= cut) this.picked[kept++] = this.picked[c]!;
    return kept;
  }

  private write(slot: number, vector: Float32Array): void {
    const at = slot * this.codeStride;
    this.kernel.bytes.fill(0, at, at + this.codeStride);
    const { scale, codeL1 } = quantize(vector, this.dimensions, this.kernel.bytes, at);
    this.scales[slot] = scale;
    this.halfL1[slot] = (scale * codeL1) / 2;
  }

  /** The store's codes of a row (int8-kernel.ts vectorCodes): the same bytes `write` would make, read not computed. */
  private writeCodes(slot: number, stored: Uint8Array): void {
    const at = slot * this.codeStride;
    const bytes = this.kernel.bytes;
    const codes = new Int8Array(stored.buffer, stored.byteOffset + CODES_HEADER_BYTES, this.dimensions);
    bytes.set(codes, at);
    bytes.fill(0, at + this.dimensions, at + this.codeStride);
    let codeL1 = 0;
    for (let d = 0; d < this.dimensions; d++) codeL1 += Math.abs(codes[d]!);
    const scale = new DataView(stored.buffer, stored.byteOffset, CODES_HEADER_BYTES).getFloat64(0, true);
    this.scales[slot] = scale;
    this.halfL1[slot] = (scale * codeL1) / 2;
  }

  /**
   * Appends a stored snapshot's chunk (./vector-snapshot.ts) to an index loading it: column copies, and per row only
   * the id's slot. False when the chunk is not one of this index's shape.
   */
  loadChunk(stored: Uint8Array): boolean {
    const chunk = readSnapshotChunk(stored, this.dimensions);
    if (!chunk) return false;
    const first = this.count;
    this.reserve(first + chunk.rows);
    const cs = this.codeStride;
    const bytes = this.kernel.bytes;
    if (cs === this.dimensions) bytes.set(chunk.codes, first * cs);
    else
      for (let i = 0; i < chunk.rows; i++)
        bytes.set(chunk.codes.subarray(i * this.dimensions, (i + 1) * this.dimensions), (first + i) * cs);
    this.scales.set(chunk.scales, first);
    this.halfL1.set(chunk.halfL1, first);
    const { ids, revs } = chunk;
    for (let i = 0; i < chunk.rows; i++) {
      const id = ids[i]!;
      this.ids[first + i] = id;
      this.revs[first + i] = revs[i]!;
      this.slots.set(id, first + i);
    }
    this.count += chunk.rows;
    return true;
  }

  /**
   * The live rows as snapshot chunks of `chunkRows`, each made when pulled. Rows changed while the chunks are pulled
   * may come as they were or as they are: either way they have revs above the snapshot's, so a load re-applies them.
   */
  *snapshotChunks(chunkRows = SNAPSHOT_CHUNK_ROWS): Generator<Uint8Array> {
    const end = this.count;
    let slot = 0;
    while (slot < end) {
      const live: number[] = [];
      for (; slot < end && live.length < chunkRows; slot++) if (this.ids[slot] !== null) live.push(slot);
      if (live.length === 0) break;
      const { bytes, chunk } = newSnapshotChunk(live.length, this.dimensions);
      const source = this.kernel.bytes;
      live.forEach((s, i) => {
        chunk.ids[i] = this.ids[s]!;
        chunk.revs[i] = this.revs[s]!;
        chunk.scales[i] = this.scales[s]!;
        chunk.halfL1[i] = this.halfL1[s]!;
        chunk.codes.set(source.subarray(s * this.codeStride, s * this.codeStride + this.dimensions), i * this.dimensions);
      });
      yield bytes;
    }
  }

  private append(id: number): number {
    const slot = this.count;
    this.reserve(slot + 1);
    this.count++;
    this.ids[slot] = id;
    this.slots.set(id, slot);
    return slot;
  }

  /** Room for `rows` slots: their codes plus one scan's scratch (query codes and 4 bytes of result per row). */
  reserve(rows: number): void {
    this.kernel.ensure((rows + 1) * this.codeStride + 4 * rows);
    this.slots.reserve(rows);
    if (rows <= this.scales.length) return;
    let length = this.scales.length;
    while (length < rows) length *= 2;
    const grow = (a: Float64Array) => {
      const b = new Float64Array(length);
      b.set(a);
      return b;
    };
    this.scales = grow(this.scales);
    this.halfL1 = grow(this.halfL1);
    this.lower = new Float64Array(length);
    this.upper = new Float64Array(length);
    this.picked = new Int32Array(length);
  }

  private remove(id: number, slot: number): void {
    this.slots.delete(id);
    this.ids[slot] = null;
    this.kernel.bytes.fill(0, slot * this.codeStride, (slot + 1) * this.codeStride);
    this.scales[slot] = 0;
    this.halfL1[slot] = 0;
  }
}

/** The default budget of a process's vector cache (BRAIN_VECTOR_CACHE_MB): about 700,000 rows of 384 int8 codes. */
export const VECTOR_CACHE_MB_DEFAULT = 256;

/**
 * The indexes of the workspaces this process serves, built lazily, in one memory budget: after each refresh the least
 * recently used indexes are dropped until the others fit (the one in use always stays, whatever its size), so a
 * process's memory does not grow with the number of workspaces in the database. A dropped index is rebuilt from the
 * store on its next use.
 */
export class VectorIndexes {
  /** In use order: the least recently used first (a Map keeps insertion order; a use re-inserts). */
  private byWorkspace = new Map<number, WorkspaceIndex>();
  /** Per workspace: the shared read refresh running now, and the one queued to start after it. */
  private running = new Map<number, Promise<WorkspaceIndex>>();
  private queued = new Map<number, Promise<WorkspaceIndex>>();
  /** Workspaces with a read ahead out (readAhead, not yet applied). */
  private aheadOut = new Set<number>();
  /** Per workspace: the snapshot being stored now (one at a time). */
  private storing = new Map<number, Promise<void>>();

  constructor(
    private readonly dimensions: number,
    private readonly embedderId: string,
    private readonly budgetBytes = VECTOR_CACHE_MB_DEFAULT * 1024 * 1024,
    private readonly snapshotAfterRows = SNAPSHOT_AFTER_ROWS,
  ) {}

  /** Resolves when the snapshots being stored now are stored (or given up). */
  async settled(): Promise<void> {
    await Promise.all(this.storing.values());
  }

  /** Bytes the cached indexes hold. */
  get bytes(): number {
    let total = 0;
    for (const index of this.byWorkspace.values()) total += index.bytes;
    return total;
  }

  /** Whether the workspace's index is in the cache (it may be behind the store). */
  has(workspaceId: number): boolean {
    return this.byWorkspace.has(workspaceId);
  }

  /**
   * What `refresh` would ask the store for now (the rows since the cached index's rev, codes for this embedder), or
   * undefined when the workspace has no index cached: a write transaction reads it as it takes the lock.
   */
  refreshAhead(workspaceId: number): { sinceRev: number; codesFor: string } | undefined {
    const index = this.byWorkspace.get(workspaceId);
    return index ? { sinceRev: index.maxRev, codesFor: this.embedderId } : undefined;
  }

  /**
   * What a read may fetch with its other statements instead of a refresh of its own (`applyAhead`): the rows since the
   * cached index's rev, at most `limit`; undefined when the index is not cached, still empty, or being refreshed by
   * `refreshShared` (a load, or a catch-up in pages), which the caller then joins.
   */
  readAhead(workspaceId: number): ReadAhead | undefined {
    const index = this.byWorkspace.get(workspaceId);
    if (!index || index.maxRev === 0 || this.running.has(workspaceId) || this.queued.has(workspaceId)) return undefined;
    // One at a time per workspace: reads that arrive while one is out share `refreshShared`'s refresh instead (one
    // statement for several reads, as before), rather than each reading the same new rows.
    if (this.aheadOut.has(workspaceId)) return undefined;
    this.aheadOut.add(workspaceId);
    return { index, sinceRev: index.maxRev, codesFor: this.embedderId, limit: REFRESH_PAGE_ROWS };
  }

  /** The read that `readAhead` answered has its rows, or failed: another read may read ahead. */
  endAhead(workspaceId: number): void {
    this.aheadOut.delete(workspaceId);
  }

  /**
   * Brings the index up to date with the rows `ahead` asked for, read (in rev order) after the caller arrived: the
   * same index `refreshShared` would give. When the index was replaced or dropped meanwhile, or the rows filled their
   * page (more may follow), the rest comes from `refreshShared`.
   */
  async applyAhead(workspaceId: number, ahead: ReadAhead, rows: readonly VectorRecord[], source: VectorSource): Promise<WorkspaceIndex> {
    this.endAhead(workspaceId);
    if (this.byWorkspace.get(workspaceId) !== ahead.index) return this.refreshShared(workspaceId, source);
    const index = this.use(workspaceId);
    index.apply(rows);
    if (rows.length >= ahead.limit) return this.refreshShared(workspaceId, source);
    this.evict(workspaceId);
    if (index.rowsSinceSnapshot >= this.snapshotAfterRows && source.writeSnapshot && !this.storing.has(workspaceId)) {
      this.storeSnapshot(workspaceId, index, source.writeSnapshot);
    }
    return index;
  }

  /** Workspaces whose index is in the cache, least recently used first. */
  get cached(): number[] {
    return [...this.byWorkspace.keys()];
  }

  /**
   * Brings the workspace's index up to date from `source` (the store, or a write transaction). The write path uses
   * this: its reads run in its own transaction and never wait on anyone else's.
   */
  async refresh(workspaceId: number, source: VectorSource): Promise<WorkspaceIndex> {
    const index = this.use(workspaceId);
    index.apply(await source.vectorsSince(index.maxRev, undefined, this.embedderId));
    this.evict(workspaceId);
    return index;
  }

  /**
   * The same for reads outside any transaction, shared by concurrent callers: a caller joins the refresh queued to
   * start after the running one (which therefore sees every write acknowledged before the caller arrived), so a burst
   * of reads on a cold workspace loads its vectors once, not once per read. Rows are read a page at a time (each page
   * the next rows in rev order, so nothing is skipped), and other requests run between pages: loading a large
   * workspace does not stall every other workspace's requests.
   */
  refreshShared(workspaceId: number, source: VectorSource, pageRows = REFRESH_PAGE_ROWS): Promise<WorkspaceIndex> {
    const queued = this.queued.get(workspaceId);
    if (queued) return queued;
    const start = (): Promise<WorkspaceIndex> => {
      this.queued.delete(workspaceId);
      const run = this.catchUp(workspaceId, source, pageRows).finally(() => {
        if (this.running.get(workspaceId) === run) this.running.delete(workspaceId);
      });
      this.running.set(workspaceId, run);
      return run;
    };
    const running = this.running.get(workspaceId);
    if (!running) return start();
    const next = running.then(start, start);
    this.queued.set(workspaceId, next);
    return next;
  }

  private async catchUp(workspaceId: number, source: VectorSource, pageRows: number): Promise<WorkspaceIndex> {
    let index = this.use(workspaceId);
    if (index.maxRev === 0 && source.readSnapshot) {
      const loaded = await this.loadSnapshot(source);
      // A write transaction may have filled the index meanwhile; then that one stays.
      if (loaded && this.byWorkspace.get(workspaceId)?.maxRev === 0) {
        this.byWorkspace.set(workspaceId, loaded);
        index = loaded;
      }
    }
    for (;;) {
      const rows = await source.vectorsSince(index.maxRev, pageRows, this.embedderId);
      index.apply(rows);
      if (rows.length < pageRows) break;
      await yieldToRequests();
    }
    this.evict(workspaceId);
    if (index.rowsSinceSnapshot >= this.snapshotAfterRows && source.writeSnapshot && !this.storing.has(workspaceId)) {
      this.storeSnapshot(workspaceId, index, source.writeSnapshot);
    }
    return index;
  }

  /** A new index from the store's snapshot, a chunk at a time with other requests between; null when there is none. */
  private async loadSnapshot(source: VectorSource): Promise<WorkspaceIndex | null> {
    const stored = await source.readSnapshot!(this.embedderId);
    if (!stored || stored.dimensions !== this.dimensions) return null;
    const index = new WorkspaceIndex(this.dimensions, this.embedderId);
    // Grown once: growing chunk by chunk would copy the codes read so far at each step.
    index.reserve(stored.rows);
    for (let c = 0; c < stored.chunks; c++) {
      const chunk = await stored.readChunk(c);
      // Replaced or erased while it was read: the rows come from vectorsSince instead.
      if (!chunk || !index.loadChunk(chunk)) return null;
      await yieldToRequests();
    }
    index.maxRev = stored.upToRev;
    return index;
  }

  /** Stores the index as the workspace's snapshot, in the background; a failure only leaves the older one. */
  private storeSnapshot(workspaceId: number, index: WorkspaceIndex, write: NonNullable<VectorSource["writeSnapshot"]>): void {
    const header = { embedderId: this.embedderId, dimensions: this.dimensions, upToRev: index.maxRev, rows: index.size };
    const since = index.rowsSinceSnapshot;
    index.rowsSinceSnapshot = 0;
    const run = write(header, index.snapshotChunks())
      .then(
        (stored) => {
          if (!stored) index.rowsSinceSnapshot += since;
        },
        // A snapshot only saves time: a store that could not take one is asked again after the next rows.
        () => {
          index.rowsSinceSnapshot += since;
        },
      )
      .finally(() => this.storing.delete(workspaceId));
    this.storing.set(workspaceId, run);
  }

  /**
   * The revs the workspace's cached index holds (undefined for a memory it does not hold, or for every memory when no
   * index is cached), read when called: a lexical search orders its ties by them (../store/shared-sql.ts rankPostings).
   */
  revsOf(workspaceId: number): RevOf {
    let index: WorkspaceIndex | undefined;
    return (id) => (index ??= this.byWorkspace.get(workspaceId))?.revOf(id);
  }

  /** Forgets a workspace's index (after a re-embed the whole workspace changes). */
  drop(workspaceId: number): void {
    this.byWorkspace.delete(workspaceId);
  }

  /** The workspace's index, made the most recently used (created empty when absent). */
  private use(workspaceId: number): WorkspaceIndex {
    let index = this.byWorkspace.get(workspaceId);
    if (index) this.byWorkspace.delete(workspaceId);
    else index = new WorkspaceIndex(this.dimensions, this.embedderId);
    this.byWorkspace.set(workspaceId, index);
    return index;
  }

  /** Drops least recently used indexes, never `keep` nor one being loaded, until the cache fits its budget. */
  private evict(keep: number): void {
    let total = this.bytes;
    for (const [workspaceId, index] of this.byWorkspace) {
      if (total <= this.budgetBytes) return;
      if (workspaceId === keep || this.running.has(workspaceId)) continue;
      this.byWorkspace.delete(workspaceId);
      total -= index.bytes;
    }
  }
}

/** Lets the requests waiting on the event loop run (between pages and chunks of a load). */
function yieldToRequests(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** A workspace's reads from the store, outside any transaction, as an index's source. */
export function storeSource(
  store: {
    vectorsSince(workspaceId: number, sinceRev: number, limit?: number, codesFor?: string): Promise<VectorRecord[]>;
    vectorsOf(workspaceId: number, ids: readonly number[]): Promise<VectorRecord[]>;
    readVectorSnapshot?(workspaceId: number, embedderId: string): Promise<StoredVectorSnapshot | null>;
    writeVectorSnapshot?(workspaceId: number, header: VectorSnapshotHeader, chunks: Iterable<Uint8Array>): Promise<boolean>;
  },
  workspaceId: number,
): VectorSource {
  const source: VectorSource = {
    vectorsSince: (since, limit, codesFor) => store.vectorsSince(workspaceId, since, limit, codesFor),
    vectorsOf: (ids) => store.vectorsOf(workspaceId, ids),
  };
  if (store.readVectorSnapshot && store.writeVectorSnapshot) {
    source.readSnapshot = (embedderId) => store.readVectorSnapshot!(workspaceId, embedderId);
    source.writeSnapshot = (header, chunks) => store.writeVectorSnapshot!(workspaceId, header, chunks);
  }
  return source;
}
