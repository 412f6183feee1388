// The webhook side of a running service: a worker that turns outbox events into deliveries and sends them (retries
// with backoff and jitter, disabling an endpoint after a run of failures), the billing checks (quota shares, cycle
// summaries), and the anomaly counters fed by answered requests and health reports.
import { hashApiKey } from "../ids.js";
import type { MemoryStore } from "../store/types.js";
import type { ServiceLog } from "../process/log.js";
import { billingCycleAt } from "./cycle.js";
import { attemptDelivery, messageBody, type AttemptOutcome } from "./deliver.js";
import { subscribes } from "./events.js";
import { RETENTION_DAYS, type Burst, type WebhookSettings } from "./settings.js";
import type { ClaimedDelivery, NewWebhookEvent, WebhookStore } from "./store.js";

/** Deliveries one process sends at once. */
const CLAIM_BATCH = 16;
const FAN_OUT_BATCH = 100;
const PRUNE_EVERY_MS = 3_600_000;

export interface AnsweredRequest {
  status: number;
  code?: string;
  workspaceId: number | null;
  /** The bearer key of a 401, so a revoked key's workspace can be found (only its hash is looked up). */
  bearer?: string;
}

export interface WebhookRuntime {
  /** Starts the delivery worker (serve). */
  start(): void;
  /** Stops the worker after the attempts in flight. */
  stop(): Promise<void>;
  requestAnswered(request: AnsweredRequest): void;
  qualityMeasured(workspaceId: number, qualityScore: number): void;
  /** One pass of the worker: fan out, then send what is due; returns the deliveries attempted. */
  runOnce(): Promise<number>;
  /**
   * Fans out and sends this one event's deliveries, nothing else of the outbox (a test: the caller's settings must
   * never judge another endpoint's deliveries); returns the deliveries attempted (0: a `serve` took it first).
   */
  sendEvent(eventId: number): Promise<number>;
}

export interface WebhookRuntimeDeps {
  store: Pick<MemoryStore, "getWorkspace"> & { webhooks: WebhookStore };
  settings: WebhookSettings;
  log: ServiceLog;
  now: () => number;
  version: string;
  random?: () => number;
}

type BurstKind = "pii_rejections" | "auth_failures" | "rate_limited";

export function createWebhookRuntime(deps: WebhookRuntimeDeps): WebhookRuntime {
  const { log, now } = deps;
  const hooks = deps.store.webhooks;
  const { settings } = deps;
  const random = deps.random ?? Math.random;
  const userAgent = `brain-mcp-webhooks/${deps.version}`;
  const bursts: Record<BurstKind, Burst> = {
    pii_rejections: settings.piiBurst,
    auth_failures: settings.authFailureBurst,
    rate_limited: settings.rateLimitedBurst,
  };
  /** Recent occurrences per kind and workspace (this process's view; the event itself is written once by any). */
  const seen = new Map<string, number[]>();

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  let lastBillingCheck = 0;
  let lastPrune = 0;
  let lastFailureLog = 0;

  /** The delay before attempt `attempt + 1`, with ±20% jitter; null when the schedule is spent. */
  function nextDelay(attempt: number): number | null {
    const base = settings.retryScheduleMs[attempt];
    return base === undefined ? null : Math.round(base * (0.8 + 0.4 * random()));
  }

  async function record(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const at = now();
    if (outcome.ok) {
      await hooks.delivered(delivery.id, delivery.endpoint_id, at, outcome.statusCode!);
      log.debug("webhook delivered", { endpoint_id: delivery.endpoint_id, msg_id: delivery.msg_id, attempts: delivery.attempts });
      return;
    }
    const delay = nextDelay(delivery.attempts);
    const run = await hooks.attemptFailed(delivery.id, delivery.endpoint_id, at, {
      statusCode: outcome.statusCode,
      error: outcome.error ?? "failed",
      nextAttemptAt: delay === null ? null : at + delay,
    });
    log.info(delay === null ? "webhook delivery failed for good" : "webhook delivery failed; will retry", {
      endpoint_id: delivery.endpoint_id,
      msg_id: delivery.msg_id,
      attempts: delivery.attempts,
      status: outcome.statusCode,
      error: outcome.error,
    });
    if (run.failureStreak >= settings.disableAfterFailures && at - run.failingSince >= settings.disableAfterMs) {
      const endpoint = await hooks.getEndpoint(delivery.endpoint_id);
      if (!endpoint) return;
      const reason = `${run.failureStreak} failed attempts in a row since ${new Date(run.failingSince).toISOString()}`;
      const disabled = await hooks.disableEndpoint(endpoint.id, at, reason, {
        workspace_id: endpoint.workspace_id,
        type: "endpoint.disabled",
        data: { workspace_id: endpoint.workspace_id, endpoint_id: endpoint.id, failed_attempts: run.failureStreak, reason },
        created_at: at,
      });
      if (disabled) {
        log.warn("webhook endpoint disabled after a run of failures; `brain-mcp admin webhook enable` turns it back on", {
          endpoint_id: endpoint.id,
          workspace_id: endpoint.workspace_id,
          failed_attempts: run.failureStreak,
        });
      }
    }
  }

  async function send(delivery: ClaimedDelivery): Promise<void> {
    const outcome = await attemptDelivery(
      {
        url: delivery.url,
        secret: delivery.secret,
        msgId: delivery.msg_id,
        body: messageBody(delivery.type, delivery.event_created_at, delivery.data),
      },
      { allowPrivate: settings.allowPrivate, timeoutMs: settings.responseTimeoutMs, userAgent, now: () => new Date(now()) },
    ).catch((err: Error): AttemptOutcome => ({ ok: false, statusCode: null, error: err.message }));
    await record(delivery, outcome);
  }

  async function checkBilling(at: number): Promise<void> {
    const endpoints = (await hooks.listEndpoints()).filter(
      (e) => e.disabled_at === null && (subscribes(e.events, "billing.usage_threshold") || subscribes(e.events, "billing.cycle_summary")),
    );
    for (const workspaceId of new Set(endpoints.map((e) => e.workspace_id))) {
      const workspace = await deps.store.getWorkspace(workspaceId);
      if (!workspace) continue;
      const created = Date.parse(workspace.created_at);
      const cycle = billingCycleAt(workspace.billing_cycle, created, at);
      const quota = settings.planQuotas.get(workspace.plan) ?? null;
      const base = { workspace_id: workspace.id, plan: workspace.plan, billing_cycle: workspace.billing_cycle };
      if (quota !== null) {
        const used = await hooks.usageBetween(workspace.id, cycle.start, at + 1);
        for (const share of settings.usageShares) {
          if (used.write < Math.ceil(share * quota)) continue;
          await hooks.insertEvent({
            workspace_id: workspace.id,
            type: "billing.usage_threshold",
            data: {
              ...base,
              cycle_start: iso(cycle.start),
              cycle_end: iso(cycle.end),
              quota_writes: quota,
              share,
              writes: used.write,
              reads: used.read,
            },
            dedup_key: `billing.usage_threshold:${workspace.id}:${cycle.start}:${share}`,
            created_at: at,
          });
        }
      }
      if (cycle.start > created) {
        const previous = billingCycleAt(workspace.billing_cycle, created, cycle.start - 1);
        const used = await hooks.usageBetween(workspace.id, previous.start, previous.end);
        await hooks.insertEvent({
          workspace_id: workspace.id,
          type: "billing.cycle_summary",
          data: {
            ...base,
            cycle_start: iso(previous.start),
            cycle_end: iso(previous.end),
            quota_writes: quota,
            writes: used.write,
            reads: used.read,
          },
          dedup_key: `billing.cycle_summary:${workspace.id}:${previous.start}`,
          created_at: at,
        });
      }
    }
  }

  async function runOnce(): Promise<number> {
    const at = now();
    if (at - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = at;
      await hooks.prune(at - RETENTION_DAYS * 86_400_000);
    }
    if (at - lastBillingCheck >= settings.billingCheckMs) {
      lastBillingCheck = at;
      await checkBilling(at);
    }
    const work = await hooks.pendingWork(now());
    if (work.unsent) while ((await hooks.fanOut(now(), FAN_OUT_BATCH)) === FAN_OUT_BATCH);
    let attempted = 0;
    if (!work.unsent && !work.due) return attempted;
    for (;;) {
      const due = await hooks.claim(now(), settings.leaseMs, CLAIM_BATCH);
      await Promise.all(due.map(send));
      attempted += due.length;
      if (due.length < CLAIM_BATCH || stopped) return attempted;
    }
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = runOnce()
        .catch((err: Error) => {
          // A store outage fails every pass: say so once a minute, not once a poll.
          if (now() - lastFailureLog < 60_000) return;
          lastFailureLog = now();
          log.warn("webhook worker pass failed; trying again", { error: err.message });
        })
        .finally(() => {
          running = undefined;
          schedule(settings.pollMs);
        });
    }, delayMs);
    timer.unref();
  }

  function emit(event: NewWebhookEvent): void {
    hooks.insertEvent(event).catch((err: Error) => log.warn("writing a webhook event failed", { type: event.type, error: err.message }));
  }

  function count(kind: BurstKind, workspaceId: number): void {
    const burst = bursts[kind];
    const at = now();
    const key = `${kind}:${workspaceId}`;
    const times = (seen.get(key) ?? []).filter((t) => t > at - burst.windowMs);
    times.push(at);
    seen.set(key, times.slice(-burst.count));
    if (times.length < burst.count) return;
    seen.delete(key);
    const window = Math.floor(at / burst.windowMs);
    emit({
      workspace_id: workspaceId,
      type: `anomaly.${kind}`,
      data: { workspace_id: workspaceId, count: times.length, window_seconds: burst.windowMs / 1000, threshold: burst.count },
      dedup_key: `anomaly.${kind}:${workspaceId}:${window}`,
      created_at: at,
    });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
    requestAnswered(request) {
      if (request.status === 422 && request.code === "pii_detected" && request.workspaceId !== null)
        count("pii_rejections", request.workspaceId);
      else if (request.status === 429 && request.workspaceId !== null) count("rate_limited", request.workspaceId);
      else if (request.status === 401 && request.bearer) {
        hooks
          .workspaceOfRevokedKey(hashApiKey(request.bearer))
          .then((workspaceId) => workspaceId !== null && count("auth_failures", workspaceId))
          .catch((err: Error) => log.warn("looking up a failed key's workspace failed", { error: err.message }));
      }
    },
    qualityMeasured(workspaceId, qualityScore) {
      const below = qualityScore < settings.qualityBelow;
      const at = now();
      const mark = "quality_score_low";
      // Read first: most health reports change nothing, and a read takes no write lock.
      const done = hooks.hasMark(workspaceId, mark).then(async (marked) => {
        if (below && !marked) {
          await hooks.markAndInsert(mark, {
            workspace_id: workspaceId,
            type: "anomaly.quality_score_low",
            data: { workspace_id: workspaceId, quality_score: qualityScore, threshold: settings.qualityBelow },
            created_at: at,
          });
        } else if (!below && marked) {
          await hooks.clearMark(workspaceId, mark);
        }
      });
      done.catch((err: Error) => log.warn("recording the quality score for webhooks failed", { error: err.message }));
    },
    runOnce,
    async sendEvent(eventId) {
      await hooks.fanOut(now(), 1, eventId);
      const due = await hooks.claim(now(), settings.leaseMs, CLAIM_BATCH, eventId);
      await Promise.all(due.map(send));
      return due.length;
    },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
