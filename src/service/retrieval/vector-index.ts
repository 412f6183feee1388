// An in-process vector index per workspace, brute force in two passes: an int8 SIMD scan of every row (a quarter of
// the bytes of float rows: the scan is memory-bandwidth bound) with a proven error bound per row, then exact float
// SIMD dot products for the rows the bound cannot rule out, so every answer equals a full float scan's. Vectors are unit length, so the dot product is the cosine.
// Kept current incrementally from the store by `rev`, so writes made through other processes are visible on the
// next refresh.
import type { VectorRecord } from "../store/types.js";
import { DotKernel, strideFor } from "./dot-kernel.js";
import { Int8Kernel, codeStrideFor } from "./int8-kernel.js";

export interface Match {
  slot: number;
  id: number;
  cosine: number;
}

const INT8_MAX = 127;
/** Added to every error bound to cover float rounding in the bound's own arithmetic. */
const ROUNDING_SLACK = 1e-6;

/** A vector as int8 codes with one scale (max |value| / 127): value ≈ scale · code, |error| ≤ scale / 2. */
function quantize(vector: Float32Array, dimensions: number, into: Int8Array, at: number): { scale: number; codeL1: number } {
  // Branch-free loops: signs are random, so branches would mispredict (this runs for every row of an index build).
  let max = 0;
  for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(vector[d]!));
  if (max === 0) return { scale: 0, codeL1: 0 };
  const inverse = INT8_MAX / max;
  let codeL1 = 0;
  for (let d = 0; d < dimensions; d++) {
    // Rounds to nearest by truncating a positive number: |x| <= 127, so x + 128.5 > 0.
    const code = ((vector[d]! * inverse + 128.5) | 0) - 128;
    into[at + d] = code;
    codeL1 += Math.abs(code);
  }
  return { scale: max / INT8_MAX, codeL1 };
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

/** Rows per page while a read catches a workspace's index up (about 22 MB of vectors with the default embedder). */
export const REFRESH_PAGE_ROWS = 5_000;

export class WorkspaceIndex {
  /** Highest rev applied; the next refresh asks the store for rows above it. */
  maxRev = 0;
  /** Slots used (live or dead). */
  count = 0;
  ids: (number | null)[] = [];
  /** The rev that last wrote each slot. */
  revs: number[] = [];
  /** Bytes per int8 row in the int8 kernel; floats per row in the float kernel. */
  readonly codeStride: number;
  readonly stride: number;
  private slots = new Map<number, number>();
  private kernel: Int8Kernel;
  private floats: DotKernel;
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
    this.stride = strideFor(dimensions);
    this.kernel = new Int8Kernel(this.codeStride * 64);
    this.floats = new DotKernel(this.stride * 64);
  }

  /** Live memories in the index. */
  get size(): number {
    return this.slots.size;
  }

  /** Applies rows in rev order; rows already seen (rev <= maxRev) are skipped, so concurrent refreshes are safe. */
  apply(records: readonly VectorRecord[]): void {
    for (const r of records) {
      if (r.rev <= this.maxRev) continue;
      this.maxRev = r.rev;
      const existing = this.slots.get(r.id);
      // Vectors of another model cannot be compared; they return once re-embedded (with a new rev).
      if (r.embedder_id !== this.embedderId || r.vector.length !== this.dimensions) {
        if (existing !== undefined) this.remove(r.id, existing);
        continue;
      }
      const slot = existing ?? this.append(r.id);
      this.write(slot, r.vector);
      this.revs[slot] = r.rev;
    }
  }

  vectorAt(slot: number): Float32Array {
    return this.floats.floats.slice(slot * this.stride, slot * this.stride + this.dimensions);
  }

  /** Exact cosine of the query with every slot (dead slots get -Infinity): a full float scan, for checks. */
  cosines(query: Float32Array): Float32Array {
    const out = this.floats.scan(0, this.count, this.stride, query, this.count * this.stride).slice();
    for (let s = 0; s < this.count; s++) if (this.ids[s] === null) out[s] = -Infinity;
    return out;
  }

  /** The `limit` most similar memories with cosine >= floor, best first (ties by slot). */
  search(query: Float32Array, floor: number, limit: number): Match[] {
    if (this.count === 0 || limit <= 0) return [];
    const n = this.screen(query, floor, limit);
    const hits: Match[] = [];
    // Exact cosines of the picked slots, one float scan per run of consecutive slots, the query placed once.
    const scratch = this.count * this.stride;
    this.floats.ensure(scratch + this.stride + this.count);
    this.floats.floats.fill(0, scratch, scratch + this.stride);
    this.floats.floats.set(query.subarray(0, this.dimensions), scratch);
    for (let c = 0; c < n; ) {
      const first = this.picked[c]!;
      let run = 1;
      while (c + run < n && this.picked[c + run] === first + run) run++;
      const cos = this.floats.scanPlaced(first * this.stride, run, this.stride, scratch);
      for (let k = 0; k < run; k++) if (cos[k]! >= floor) hits.push({ slot: first + k, id: this.ids[first + k]!, cosine: cos[k]! });
      c += run;
    }
    hits.sort((a, b) => b.cosine - a.cosine || a.slot - b.slot);
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }

  /** The single most similar memory, or null for an empty index. */
  nearest(query: Float32Array): Match | null {
    return this.search(query, -Infinity, 1)[0] ?? null;
  }

  /**
   * Pairs with cosine >= threshold among the `limit` most recently written memories (highest rev), by int8 scans of
   * each row against the rows after it and exact cosines where the bound allows a pair to reach the threshold.
   */
  /** `visit`, when given, hears each pair's memory ids and cosine (the dashboard's list of duplicates). */
  pairsAbove(threshold: number, limit: number, visit?: (a: number, b: number, cosine: number) => void): number {
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
    let pairs = 0;
    for (let i = 0; i < n - 1; i++) {
      const si = window[i]!;
      const scaleI = this.scales[si]!;
      const dots = this.kernel.scan(at + (i + 1) * cs, n - 1 - i, cs, at + i * cs, outAt);
      for (let j = 0; j < dots.length; j++) {
        const sj = window[i + 1 + j]!;
        const scaleJ = this.scales[sj]!;
        const approx = dots[j]! * scaleI * scaleJ;
        const bound = scaleJ * this.halfL1[si]! + scaleI * this.halfL1[sj]! + scaleI * scaleJ * quarterDims + ROUNDING_SLACK;
        if (approx + bound < threshold) continue;
        const cosine = this.exactPair(si, sj);
        if (cosine < threshold) continue;
        pairs++;
        visit?.(this.ids[si]!, this.ids[sj]!, cosine);
      }
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

  private exactPair(a: number, b: number): number {
    const scratch = this.count * this.stride;
    this.floats.ensure(scratch + this.stride + 1);
    this.floats.floats.copyWithin(scratch, b * this.stride, (b + 1) * this.stride);
    return this.floats.scanPlaced(a * this.stride, 1, this.stride, scratch)[0]!;
  }

  private write(slot: number, vector: Float32Array): void {
    this.floats.floats.set(vector, slot * this.stride);
    const at = slot * this.codeStride;
    this.kernel.bytes.fill(0, at, at + this.codeStride);
    const { scale, codeL1 } = quantize(vector, this.dimensions, this.kernel.bytes, at);
    this.scales[slot] = scale;
    this.halfL1[slot] = (scale * codeL1) / 2;
  }

  private append(id: number): number {
    const slot = this.count++;
    // Room for the rows plus one scan's scratch (query codes and 4 bytes of result per row).
    this.kernel.ensure((this.count + 1) * this.codeStride + 4 * this.count);
    this.floats.ensure(this.count * this.stride);
    if (slot >= this.scales.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.scales = grow(this.scales);
      this.halfL1 = grow(this.halfL1);
      this.lower = new Float64Array(this.scales.length);
      this.upper = new Float64Array(this.scales.length);
      this.picked = new Int32Array(this.scales.length);
    }
    this.ids[slot] = id;
    this.slots.set(id, slot);
    return slot;
  }

  private remove(id: number, slot: number): void {
    this.slots.delete(id);
    this.ids[slot] = null;
    this.floats.floats.fill(0, slot * this.stride, (slot + 1) * this.stride);
    this.kernel.bytes.fill(0, slot * this.codeStride, (slot + 1) * this.codeStride);
    this.scales[slot] = 0;
    this.halfL1[slot] = 0;
  }
}

/** The indexes of every workspace this process has served, built lazily. */
export class VectorIndexes {
  private byWorkspace = new Map<number, WorkspaceIndex>();
  /** Per workspace: the shared read refresh running now, and the one queued to start after it. */
  private running = new Map<number, Promise<WorkspaceIndex>>();
  private queued = new Map<number, Promise<WorkspaceIndex>>();

  constructor(
    private readonly dimensions: number,
    private readonly embedderId: string,
  ) {}

  /**
   * Brings the workspace's index up to date using `fetchSince` (the store, or a write transaction). The write path
   * uses this: its fetch runs in its own transaction and never waits on anyone else's.
   */
  async refresh(workspaceId: number, fetchSince: (sinceRev: number) => Promise<VectorRecord[]>): Promise<WorkspaceIndex> {
    const index = this.indexFor(workspaceId);
    index.apply(await fetchSince(index.maxRev));
    return index;
  }

  /**
   * The same for reads outside any transaction, shared by concurrent callers: a caller joins the refresh queued to
   * start after the running one (which therefore sees every write acknowledged before the caller arrived), so a burst
   * of reads on a cold workspace loads its vectors once, not once per read. Rows are read a page at a time (each page
   * the next rows in rev order, so nothing is skipped), and other requests run between pages: loading a large
   * workspace does not stall every other workspace's requests.
   */
  refreshShared(
    workspaceId: number,
    fetchPage: (sinceRev: number, limit: number) => Promise<VectorRecord[]>,
    pageRows = REFRESH_PAGE_ROWS,
  ): Promise<WorkspaceIndex> {
    const queued = this.queued.get(workspaceId);
    if (queued) return queued;
    const start = (): Promise<WorkspaceIndex> => {
      this.queued.delete(workspaceId);
      const run = this.catchUp(workspaceId, fetchPage, pageRows).finally(() => {
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

  private async catchUp(
    workspaceId: number,
    fetchPage: (sinceRev: number, limit: number) => Promise<VectorRecord[]>,
    pageRows: number,
  ): Promise<WorkspaceIndex> {
    const index = this.indexFor(workspaceId);
    for (;;) {
      const rows = await fetchPage(index.maxRev, pageRows);
      index.apply(rows);
      if (rows.length < pageRows) return index;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Forgets a workspace's index (after a re-embed the whole workspace changes). */
  drop(workspaceId: number): void {
    this.byWorkspace.delete(workspaceId);
  }

  private indexFor(workspaceId: number): WorkspaceIndex {
    let index = this.byWorkspace.get(workspaceId);
    if (!index) {
      index = new WorkspaceIndex(this.dimensions, this.embedderId);
      this.byWorkspace.set(workspaceId, index);
    }
    return index;
  }
}
