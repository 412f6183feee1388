// Test-only models (never imported by src): a hashed bag-of-words embedder and a judge that reads hints.
import type { Embedder, Judge, Judgement } from "../../src/service/models/types.js";

export const TEST_DIMENSIONS = 256;

function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const STOP = new Set("a an the is are was to of in on at for and or my our we i it this that with".split(" "));

/** Bag of words, hashed and unit length: texts sharing words are similar, texts sharing none have cosine 0. */
export function bagOfWords(text: string, dims = TEST_DIMENSIONS): Float32Array {
  const v = new Float32Array(dims);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) if (!STOP.has(w)) v[hash(w) % dims]! += 1;
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < dims; i++) v[i]! /= n;
  return v;
}

export function testEmbedder(id = "test-bow/1", dedupThreshold = 0.9): Embedder {
  return {
    id,
    dimensions: TEST_DIMENSIONS,
    dedupThreshold,
    async load() {},
    async embed(texts) {
      return texts.map((t) => bagOfWords(t));
    },
  };
}

/** Reads hints from the text: "importance N" or N exclamation marks, "until YYYY-MM-DD"; else importance 5, persistent. */
export function testJudge(overrides: Partial<Judgement> = {}): Judge {
  return {
    id: "test-judge/1",
    async load() {},
    async judge(text) {
      const imp = /importance (\d+)/.exec(text);
      const until = /until (\d{4}-\d{2}-\d{2})/.exec(text);
      const bangs = (text.match(/!/g) ?? []).length;
      return {
        importance: imp ? Number(imp[1]) : bangs || 5,
        temporal: until ? { type: "time_bound", valid_until: `${until[1]}T00:00:00Z` } : { type: "persistent", valid_until: null },
        categories: ["work", "project"],
        ...overrides,
      };
    },
  };
}
