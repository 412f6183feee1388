// The service's settings, read from the environment once, at the edge that starts it (serve, the embedded
// adapter, tests), and passed in: the core never reads process.env.
import { RATE_LIMIT_BURST_DEFAULT, RATE_LIMIT_RPS_DEFAULT } from "../contract/limits.js";
import { VECTOR_CACHE_MB_DEFAULT } from "./retrieval/vector-index.js";
import { webhookSettings, type WebhookSettings } from "./webhooks/settings.js";

export interface ServiceSettings {
  /** Per-key token bucket: BRAIN_RATE_LIMIT_RPS, BRAIN_RATE_LIMIT_BURST. */
  rateLimit: { rps: number; burst: number };
  /** The vector cache's memory budget: BRAIN_VECTOR_CACHE_MB. */
  vectorCacheBytes: number;
  webhooks: WebhookSettings;
}

function positiveNumber(raw: string | undefined, fallback: number): number {
  const n = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export function serviceSettings(env: NodeJS.ProcessEnv): ServiceSettings {
  return {
    rateLimit: {
      rps: positiveNumber(env.BRAIN_RATE_LIMIT_RPS, RATE_LIMIT_RPS_DEFAULT),
      burst: positiveNumber(env.BRAIN_RATE_LIMIT_BURST, RATE_LIMIT_BURST_DEFAULT),
    },
    vectorCacheBytes: positiveNumber(env.BRAIN_VECTOR_CACHE_MB, VECTOR_CACHE_MB_DEFAULT) * 1024 * 1024,
    webhooks: webhookSettings(env),
  };
}
