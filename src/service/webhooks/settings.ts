// Every webhook threshold and default in one place, each overridable by an environment variable; the README's
// "Webhooks" section and docs/decisions.md (issue 22) document them.

/** Svix's published retry schedule: the delay before each attempt, in seconds (8 attempts over about 27.5 hours). */
export const RETRY_SCHEDULE_DEFAULT_S = [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];
/** How long a receiver has to answer one delivery (connect, send, response headers). */
export const RESPONSE_TIMEOUT_DEFAULT_MS = 10_000;
/** An endpoint is disabled after this many failed attempts in a row… */
export const DISABLE_AFTER_FAILURES_DEFAULT = 15;
/** …once the run of failures has also lasted this long (Svix disables after five days of failures). */
export const DISABLE_AFTER_HOURS_DEFAULT = 120;
/** How often each process looks for events to send. */
export const POLL_DEFAULT_MS = 1_000;
/** How often each process checks usage against quotas and closes billing cycles. */
export const BILLING_CHECK_DEFAULT_S = 60;
/** Writes per billing cycle by plan; a plan not named has no quota (only the cycle summary is sent). */
export const PLAN_QUOTAS_DEFAULT = "free=10000";
/** The shares of the quota whose crossing is announced, once each per cycle. */
export const USAGE_SHARES_DEFAULT = "0.8,1";
/** Bursts: at least `count` in `windowS` seconds on one workspace, announced once per window. */
export const PII_BURST_DEFAULT = "10/300";
export const AUTH_FAILURE_BURST_DEFAULT = "20/300";
export const RATE_LIMITED_BURST_DEFAULT = "100/60";
/** Health's quality score (0..100) below this is announced once, until it recovers to at least this. */
export const QUALITY_BELOW_DEFAULT = 50;
/** Delivered and failed deliveries, and their events, are kept this long for `admin webhook deliveries`. */
export const RETENTION_DAYS = 30;
/** At most this much of a receiver's answer is read (and at most 200 characters of it kept as the last error). */
export const RESPONSE_READ_LIMIT_BYTES = 4_096;

export interface Burst {
  count: number;
  windowMs: number;
}

export interface WebhookSettings {
  allowPrivate: boolean;
  retryScheduleMs: number[];
  responseTimeoutMs: number;
  disableAfterFailures: number;
  disableAfterMs: number;
  pollMs: number;
  billingCheckMs: number;
  /** Lease on a claimed delivery (an attempt takes at most one timeout to resolve and one to answer): a process that
   * dies mid-delivery frees it for another after this. */
  leaseMs: number;
  planQuotas: Map<string, number>;
  usageShares: number[];
  piiBurst: Burst;
  authFailureBurst: Burst;
  rateLimitedBurst: Burst;
  qualityBelow: number;
}

function number(raw: string | undefined, fallback: number, min = 0): number {
  const n = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isFinite(n) && n >= min ? n : fallback;
}

function burst(raw: string | undefined, fallback: string): Burst {
  const parse = (v: string) => {
    const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(v);
    return m && Number(m[1]) > 0 && Number(m[2]) > 0 ? { count: Number(m[1]), windowMs: Number(m[2]) * 1000 } : null;
  };
  return (raw !== undefined && parse(raw)) || parse(fallback)!;
}

function quotas(raw: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of raw.split(",")) {
    const [plan, value] = part.split("=").map((s) => s.trim());
    const n = Number(value);
    if (plan && Number.isInteger(n) && n > 0) out.set(plan, n);
  }
  return out;
}

export function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const schedule = (env.BRAIN_WEBHOOK_RETRY_SCHEDULE ?? "")
    .split(",")
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isFinite(n) && n >= 0);
  const responseTimeoutMs = number(env.BRAIN_WEBHOOK_TIMEOUT_MS, RESPONSE_TIMEOUT_DEFAULT_MS, 1);
  const shares = (env.BRAIN_WEBHOOK_USAGE_SHARES ?? USAGE_SHARES_DEFAULT)
    .split(",")
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isFinite(n) && n > 0);
  return {
    allowPrivate: (env.BRAIN_WEBHOOK_ALLOW_PRIVATE ?? "").trim() === "1",
    retryScheduleMs: (schedule.length > 0 ? schedule : RETRY_SCHEDULE_DEFAULT_S).map((s) => s * 1000),
    responseTimeoutMs,
    disableAfterFailures: number(env.BRAIN_WEBHOOK_DISABLE_AFTER_FAILURES, DISABLE_AFTER_FAILURES_DEFAULT, 1),
    disableAfterMs: number(env.BRAIN_WEBHOOK_DISABLE_AFTER_HOURS, DISABLE_AFTER_HOURS_DEFAULT) * 3_600_000,
    pollMs: number(env.BRAIN_WEBHOOK_POLL_MS, POLL_DEFAULT_MS, 10),
    billingCheckMs: number(env.BRAIN_WEBHOOK_BILLING_CHECK_S, BILLING_CHECK_DEFAULT_S, 0.01) * 1000,
    leaseMs: responseTimeoutMs * 2 + 5_000,
    planQuotas: quotas(env.BRAIN_PLAN_QUOTAS ?? PLAN_QUOTAS_DEFAULT),
    usageShares: shares.length > 0 ? [...new Set(shares)].sort((a, b) => a - b) : [0.8, 1],
    piiBurst: burst(env.BRAIN_WEBHOOK_PII_BURST, PII_BURST_DEFAULT),
    authFailureBurst: burst(env.BRAIN_WEBHOOK_AUTH_FAILURE_BURST, AUTH_FAILURE_BURST_DEFAULT),
    rateLimitedBurst: burst(env.BRAIN_WEBHOOK_RATE_LIMITED_BURST, RATE_LIMITED_BURST_DEFAULT),
    qualityBelow: number(env.BRAIN_WEBHOOK_QUALITY_BELOW, QUALITY_BELOW_DEFAULT),
  };
}
