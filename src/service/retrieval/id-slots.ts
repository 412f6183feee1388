// A vector index's id → slot map in typed arrays (open addressing, linear probing, deletion by backward shift). Memory
// ids are random integers up to 2^49 (../store/memory-ids.ts), outside V8's small integers: a `Map` holds each as a
// boxed number, so loading 100,000 rows made 100,000 heap objects for the collector to copy and keep; here an entry is
// 12 bytes of two typed arrays and loading a snapshot allocates nothing per row.

const EMPTY = -1;

export class IdSlots {
  private keys = new Float64Array(16);
  private values = new Int32Array(16).fill(EMPTY);
  private mask = 15;
  /** 32 − log2(capacity): the hash's top bits pick the home position. */
  private shift = 28;
  size = 0;

  get(id: number): number | undefined {
    for (let at = this.home(id); ; at = (at + 1) & this.mask) {
      const slot = this.values[at]!;
      if (slot === EMPTY) return undefined;
      if (this.keys[at] === id) return slot;
    }
  }

  set(id: number, slot: number): void {
    // Kept at most half full: probes stay short.
    if ((this.size + 1) * 2 > this.keys.length) this.grow(this.keys.length * 2);
    for (let at = this.home(id); ; at = (at + 1) & this.mask) {
      if (this.values[at] === EMPTY) {
        this.keys[at] = id;
        this.values[at] = slot;
        this.size++;
        return;
      }
      if (this.keys[at] === id) {
        this.values[at] = slot;
        return;
      }
    }
  }

  /** Room for `n` entries without growing again (a snapshot's rows, before they are set). */
  reserve(n: number): void {
    let capacity = this.keys.length;
    while (n * 2 > capacity) capacity *= 2;
    if (capacity > this.keys.length) this.grow(capacity);
  }

  delete(id: number): boolean {
    let at = this.home(id);
    for (; ; at = (at + 1) & this.mask) {
      if (this.values[at] === EMPTY) return false;
      if (this.keys[at] === id) break;
    }
    // Backward shift: entries after the hole that could sit in it move up, so no probe sequence is broken.
    let hole = at;
    for (let next = (hole + 1) & this.mask; this.values[next] !== EMPTY; next = (next + 1) & this.mask) {
      const home = this.home(this.keys[next]!);
      // `next` may fill the hole when its home is not cyclically within (hole, next].
      if (((next - home) & this.mask) >= ((next - hole) & this.mask)) {
        this.keys[hole] = this.keys[next]!;
        this.values[hole] = this.values[next]!;
        hole = next;
      }
    }
    this.values[hole] = EMPTY;
    this.size--;
    return true;
  }

  private home(id: number): number {
    // Both 32-bit halves of the integer, mixed (ids from a sequence differ in the low half only).
    const low = id >>> 0;
    const high = Math.floor(id / 4294967296) >>> 0;
    return Math.imul(low ^ Math.imul(high, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }

  private grow(capacity: number): void {
    const { keys, values } = this;
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    this.shift = 32 - Math.log2(capacity);
    this.size = 0;
    for (let at = 0; at < keys.length; at++) if (values[at] !== EMPTY) this.set(keys[at]!, values[at]!);
  }
}
