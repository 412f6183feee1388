// An in-process vector index per workspace: one float matrix, brute-force SIMD dot products (vectors are unit
// length, so the dot product is the cosine). Kept current incrementally from the store by `rev`, so writes made
// through other processes are visible on the next refresh.
import type { VectorRecord } from "../store/types.js";
import { DotKernel, strideFor } from "./dot-kernel.js";

export interface Match {
  slot: number;
  id: string;
  cosine: number;
}

export class WorkspaceIndex {
  /** Highest rev applied; the next refresh asks the store for rows above it. */
  maxRev = 0;
  /** Slots used (live or dead); rows sit contiguously from float 0 in the kernel, `stride` floats each. */
  count = 0;
  ids: (string | null)[] = [];
  /** The rev that last wrote each slot. */
  revs: number[] = [];
  readonly stride: number;
  private slots = new Map<string, number>();
  private kernel: DotKernel;

  constructor(
    readonly dimensions: number,
    readonly embedderId: string,
  ) {
    this.stride = strideFor(dimensions);
    this.kernel = new DotKernel(this.stride * 64);
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
      this.kernel.floats.set(r.vector, slot * this.stride);
      this.revs[slot] = r.rev;
    }
  }

  vectorAt(slot: number): Float32Array {
    return this.kernel.floats.slice(slot * this.stride, slot * this.stride + this.dimensions);
  }

  /** Cosine of the query with every slot (dead slots get -Infinity). A view: valid until the next call. */
  cosines(query: Float32Array): Float32Array {
    const out = this.kernel.scan(0, this.count, this.stride, query, this.count * this.stride);
    for (let s = 0; s < this.count; s++) if (this.ids[s] === null) out[s] = -Infinity;
    return out;
  }

  /** The `limit` most similar memories with cosine >= floor, best first. */
  search(query: Float32Array, floor: number, limit: number): Match[] {
    const cos = this.cosines(query);
    const hits: Match[] = [];
    for (let s = 0; s < cos.length; s++) if (cos[s]! >= floor) hits.push({ slot: s, id: this.ids[s]!, cosine: cos[s]! });
    hits.sort((a, b) => b.cosine - a.cosine);
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }

  /** The single most similar memory, or null for an empty index. */
  nearest(query: Float32Array): Match | null {
    const cos = this.cosines(query);
    let best = -1;
    for (let s = 0; s < cos.length; s++) if (this.ids[s] !== null && (best < 0 || cos[s]! > cos[best]!)) best = s;
    return best < 0 ? null : { slot: best, id: this.ids[best]!, cosine: cos[best]! };
  }

  /**
   * Pairs with cosine >= threshold among the `limit` most recently written memories (highest rev), by SIMD scans of
   * each row against the rows after it: at most limit²/2 dot products whatever the workspace's size.
   */
  pairsAbove(threshold: number, limit: number): number {
    const live: number[] = [];
    for (let s = 0; s < this.count; s++) if (this.ids[s] !== null) live.push(s);
    const window = live.length > limit ? live.sort((a, b) => this.revs[b]! - this.revs[a]!).slice(0, limit) : live;
    const n = window.length;
    if (n < 2) return 0;
    // Copy the window's rows contiguously after the index's rows, then scan each row against the later ones.
    const at = this.count * this.stride;
    this.kernel.ensure(at + (n + 1) * this.stride + n);
    for (let i = 0; i < n; i++) {
      const from = window[i]! * this.stride;
      this.kernel.floats.copyWithin(at + i * this.stride, from, from + this.stride);
    }
    const scratch = at + n * this.stride;
    let pairs = 0;
    for (let i = 0; i < n - 1; i++) {
      const row = this.kernel.floats.slice(at + i * this.stride, at + (i + 1) * this.stride);
      const out = this.kernel.scan(at + (i + 1) * this.stride, n - 1 - i, this.stride, row, scratch);
      for (let j = 0; j < out.length; j++) if (out[j]! >= threshold) pairs++;
    }
    return pairs;
  }

  private append(id: string): number {
    this.kernel.ensure((this.count + 1) * this.stride);
    const slot = this.count++;
    this.ids[slot] = id;
    this.slots.set(id, slot);
    return slot;
  }

  private remove(id: string, slot: number): void {
    this.slots.delete(id);
    this.ids[slot] = null;
    this.kernel.floats.fill(0, slot * this.stride, (slot + 1) * this.stride);
  }
}

/** The indexes of every workspace this process has served, built lazily. */
export class VectorIndexes {
  private byWorkspace = new Map<string, WorkspaceIndex>();

  constructor(
    private readonly dimensions: number,
    private readonly embedderId: string,
  ) {}

  /** Brings the workspace's index up to date using `fetchSince` (the store, or a write transaction). */
  async refresh(workspaceId: string, fetchSince: (sinceRev: number) => Promise<VectorRecord[]>): Promise<WorkspaceIndex> {
    let index = this.byWorkspace.get(workspaceId);
    if (!index) {
      index = new WorkspaceIndex(this.dimensions, this.embedderId);
      this.byWorkspace.set(workspaceId, index);
    }
    index.apply(await fetchSince(index.maxRev));
    return index;
  }

  /** Forgets a workspace's index (after a re-embed the whole workspace changes). */
  drop(workspaceId: string): void {
    this.byWorkspace.delete(workspaceId);
  }
}
