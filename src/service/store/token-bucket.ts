// Per-key token buckets in process memory: the SQLite store's rate limiter (one process per file is the norm).
import type { RateDecision } from "../types.js";

interface Bucket {
  tokens: number;
  atMs: number;
}

/** Buckets idle long enough to be full again are dropped, so the map stays bounded by active keys. */
const SWEEP_EVERY = 1_000;

export function createTokenBuckets() {
  const buckets = new Map<number, Bucket>();
  let takes = 0;

  function sweep(nowMs: number, rps: number, burst: number) {
    for (const [key, b] of buckets) if (b.tokens + ((nowMs - b.atMs) / 1000) * rps >= burst) buckets.delete(key);
  }

  return {
    /** Refills at `rps` tokens per second up to `burst`, then takes one token if there is one. */
    take(keyId: number, rps: number, burst: number, nowMs: number): RateDecision {
      if (++takes % SWEEP_EVERY === 0) sweep(nowMs, rps, burst);
      const bucket = buckets.get(keyId) ?? { tokens: burst, atMs: nowMs };
      const elapsed = Math.max(0, nowMs - bucket.atMs) / 1000;
      bucket.tokens = Math.min(burst, bucket.tokens + elapsed * rps);
      bucket.atMs = nowMs;
      buckets.set(keyId, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true, retryAfterSeconds: 0 };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rps)) };
    },
  };
}
