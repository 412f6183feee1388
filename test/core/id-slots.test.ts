// The vector index's id → slot map (src/service/retrieval/id-slots.ts) against a Map: random ids of both kinds a store
// gives (small ones from a sequence, random ones up to 2^49), sets, overwrites, deletes (which shift entries back), and
// growth; every answer the same.
import { describe, expect, it } from "vitest";
import { IdSlots } from "../../src/service/retrieval/id-slots.js";

let seed = 11;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

describe("IdSlots", () => {
  it("answers as a Map through 40,000 random sets, overwrites and deletes", () => {
    const slots = new IdSlots();
    const map = new Map<number, number>();
    const ids: number[] = [];
    for (let i = 0; i < 40_000; i++) {
      const r = random();
      if (r < 0.5 || ids.length === 0) {
        // Sequence ids collide in their low bits with nothing; random ones span 2^32 .. 2^32 + 2^48.
        const id = random() < 0.3 ? 1 + Math.floor(random() * 5_000) : 2 ** 32 + Math.floor(random() * 2 ** 48);
        ids.push(id);
        slots.set(id, i);
        map.set(id, i);
      } else if (r < 0.7) {
        const id = ids[Math.floor(random() * ids.length)]!;
        slots.set(id, -i >>> 1);
        map.set(id, -i >>> 1);
      } else {
        const id = ids[Math.floor(random() * ids.length)]!;
        expect(slots.delete(id)).toBe(map.delete(id));
      }
      if (i % 4_999 === 0) for (const id of ids) expect(slots.get(id)).toBe(map.get(id));
      expect(slots.size).toBe(map.size);
    }
    for (const id of ids) expect(slots.get(id)).toBe(map.get(id));
    expect(slots.get(2 ** 40 + 3)).toBeUndefined();
  });

  it("keeps every entry when reserved ahead and when it grows", () => {
    const slots = new IdSlots();
    slots.reserve(1_000);
    for (let i = 0; i < 5_000; i++) slots.set(2 ** 32 + i * 2 ** 20, i);
    expect(slots.size).toBe(5_000);
    for (let i = 0; i < 5_000; i++) expect(slots.get(2 ** 32 + i * 2 ** 20)).toBe(i);
    for (let i = 0; i < 5_000; i += 2) expect(slots.delete(2 ** 32 + i * 2 ** 20)).toBe(true);
    for (let i = 0; i < 5_000; i++) expect(slots.get(2 ** 32 + i * 2 ** 20)).toBe(i % 2 ? i : undefined);
  });
});
