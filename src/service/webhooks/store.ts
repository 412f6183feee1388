// The webhook tables, dialect-neutral over a SqlRunner: endpoints, the outbox of events, each event's deliveries to
// the endpoints subscribed to it, and the marks that keep a condition from being announced twice.
import { subscribes } from "./events.js";
import type { SqlRunner } from "./sql.js";

export interface WebhookEndpoint {
  id: number;
  workspace_id: number;
  url: string;
  /** Categories and event types; empty: every event. */
  events: string[];
  created_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  failure_streak: number;
}

export interface NewWebhookEvent {
  workspace_id: number;
  type: string;
  data: Record<string, unknown>;
  created_at: number;
  /** Only this endpoint (a test event). */
  endpoint_id?: number;
  /** At most one event with this key is ever written, by any process. */
  dedup_key?: string;
}

/** A delivery this process has leased, with what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  endpoint_id: number;
  /** Including this one. */
  attempts: number;
  created_at: number;
  msg_id: string;
  type: string;
  data: string;
  event_created_at: number;
  url: string;
  secret: string;
}

export interface DeliveryRecord {
  id: number;
  event_id: number;
  msg_id: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  created_at: number;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: number | null;
}

type EndpointRow = Omit<WebhookEndpoint, "events"> & { events: string };

const ENDPOINT_COLUMNS = "id, workspace_id, url, events, created_at, disabled_at, disabled_reason, failure_streak";

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({ ...row, events: JSON.parse(row.events) as string[] });

export interface WebhookStore {
  addEndpoint(e: { workspace_id: number; url: string; secret: string; events: string[]; created_at: number }): Promise<number>;
  listEndpoints(workspaceId?: number): Promise<WebhookEndpoint[]>;
  getEndpoint(id: number): Promise<(WebhookEndpoint & { secret: string }) | null>;
  /** Removes the endpoint and its delivery log. */
  removeEndpoint(id: number): Promise<boolean>;
  setSecret(id: number, secret: string): Promise<boolean>;
  /** Enables a disabled endpoint; its pending deliveries go out again. */
  enableEndpoint(id: number): Promise<boolean>;
  /** The event's id, or null when an event with its dedup_key exists. */
  insertEvent(event: NewWebhookEvent): Promise<number | null>;
  /** Sets the workspace's mark and writes the event in one transaction, only when the mark was not set; true then. */
  markAndInsert(mark: string, event: NewWebhookEvent): Promise<boolean>;
  hasMark(workspaceId: number, mark: string): Promise<boolean>;
  clearMark(workspaceId: number, mark: string): Promise<void>;
  /** Whether any event awaits fan-out and any delivery is due: a read, so an idle worker takes no write lock. */
  pendingWork(nowMs: number): Promise<{ unsent: boolean; due: boolean }>;
  /**
   * Turns up to `limit` new events into deliveries, one per subscribed, enabled endpoint; returns how many events.
   * With `eventId`, that event only (a test sends its own event and nothing else).
   */
  fanOut(nowMs: number, limit: number, eventId?: number): Promise<number>;
  /**
   * Leases up to `limit` due deliveries of enabled endpoints (several processes never lease the same one); with
   * `eventId`, only that event's.
   */
  claim(nowMs: number, leaseMs: number, limit: number, eventId?: number): Promise<ClaimedDelivery[]>;
  delivered(id: number, endpointId: number, nowMs: number, statusCode: number): Promise<void>;
  /** Records a failed attempt; returns the endpoint's run of failures and when it began. */
  attemptFailed(
    id: number,
    endpointId: number,
    nowMs: number,
    outcome: { statusCode: number | null; error: string; nextAttemptAt: number | null },
  ): Promise<{ failureStreak: number; failingSince: number }>;
  /** Disables the endpoint and writes its `endpoint.disabled` event in one transaction; false when it already was. */
  disableEndpoint(id: number, nowMs: number, reason: string, event: NewWebhookEvent): Promise<boolean>;
  deliveries(endpointId: number, limit: number): Promise<DeliveryRecord[]>;
  /** Billable usage of a workspace in [fromMs, toMs). */
  usageBetween(workspaceId: number, fromMs: number, toMs: number): Promise<{ write: number; read: number }>;
  /** The workspace a revoked key belonged to (authentication failures are counted per workspace). */
  workspaceOfRevokedKey(keyHash: string): Promise<number | null>;
  /** Drops finished deliveries and sent events older than `beforeMs`. */
  prune(beforeMs: number): Promise<void>;
}

export function createWebhookStore(sql: SqlRunner): WebhookStore {
  const skipLocked = sql.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";

  const insertEvent = async (db: SqlRunner, e: NewWebhookEvent): Promise<number | null> => {
    const rows = await db.all<{ id: number }>(
      "INSERT INTO webhook_events (workspace_id, type, data, endpoint_id, dedup_key, created_at) VALUES (?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT DO NOTHING RETURNING id",
      [e.workspace_id, e.type, JSON.stringify(e.data), e.endpoint_id ?? null, e.dedup_key ?? null, e.created_at],
    );
    return rows[0]?.id ?? null;
  };

  return {
    async addEndpoint(e) {
      const rows = await sql.all<{ id: number }>(
        "INSERT INTO webhook_endpoints (workspace_id, url, secret, events, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
        [e.workspace_id, e.url, e.secret, JSON.stringify(e.events), e.created_at],
      );
      return rows[0]!.id;
    },
    async listEndpoints(workspaceId) {
      const rows =
        workspaceId === undefined
          ? await sql.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY id`)
          : await sql.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = ? ORDER BY id`, [
              workspaceId,
            ]);
      return rows.map(toEndpoint);
    },
    async getEndpoint(id) {
      const rows = await sql.all<EndpointRow & { secret: string }>(
        `SELECT ${ENDPOINT_COLUMNS}, secret FROM webhook_endpoints WHERE id = ?`,
        [id],
      );
      return rows[0] ? { ...toEndpoint(rows[0]), secret: rows[0].secret } : null;
    },
    removeEndpoint: async (id) => (await sql.run("DELETE FROM webhook_endpoints WHERE id = ?", [id])) > 0,
    setSecret: async (id, secret) => (await sql.run("UPDATE webhook_endpoints SET secret = ? WHERE id = ?", [secret, id])) > 0,
    enableEndpoint: async (id) =>
      (await sql.run(
        "UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, failure_streak = 0, failing_since = NULL WHERE id = ?",
        [id],
      )) > 0,

    insertEvent: (e) => insertEvent(sql, e),
    markAndInsert: (mark, e) =>
      sql.transaction(async (tx) => {
        const set = await tx.run("INSERT INTO webhook_marks (workspace_id, mark, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [
          e.workspace_id,
          mark,
          e.created_at,
        ]);
        if (set === 0) return false;
        await insertEvent(tx, e);
        return true;
      }),
    hasMark: async (workspaceId, mark) =>
      (await sql.all("SELECT 1 AS one FROM webhook_marks WHERE workspace_id = ? AND mark = ?", [workspaceId, mark])).length > 0,
    async clearMark(workspaceId, mark) {
      await sql.run("DELETE FROM webhook_marks WHERE workspace_id = ? AND mark = ?", [workspaceId, mark]);
    },

    async pendingWork(nowMs) {
      const rows = await sql.all<{ unsent: unknown; due: unknown }>(
        `SELECT EXISTS (SELECT 1 FROM webhook_events WHERE fanned_out_at IS NULL) AS unsent,
                EXISTS (SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                         WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)
                           AND e.disabled_at IS NULL) AS due`,
        [nowMs, nowMs],
      );
      // SQLite answers 0/1, PostgreSQL booleans.
      return { unsent: Boolean(rows[0]?.unsent), due: Boolean(rows[0]?.due) };
    },

    fanOut: (nowMs, limit, eventId) =>
      sql.transaction(async (tx) => {
        const only = eventId === undefined ? "" : " AND id = ?";
        const events = await tx.all<{ id: number; workspace_id: number; type: string; endpoint_id: number | null; created_at: number }>(
          `SELECT id, workspace_id, type, endpoint_id, created_at FROM webhook_events WHERE fanned_out_at IS NULL${only} ORDER BY id LIMIT ?${skipLocked}`,
          eventId === undefined ? [limit] : [eventId, limit],
        );
        for (const event of events) {
          const endpoints = (
            await tx.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = ? AND disabled_at IS NULL`, [
              event.workspace_id,
            ])
          ).map(toEndpoint);
          // An endpoint hears the events that happened after it was added (a test event: only its own).
          const targets = endpoints.filter((e) =>
            event.endpoint_id !== null ? e.id === event.endpoint_id : e.created_at <= event.created_at && subscribes(e.events, event.type),
          );
          for (const endpoint of targets) {
            await tx.run(
              "INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, created_at) VALUES (?, ?, 'pending', ?, ?) " +
                "ON CONFLICT DO NOTHING",
              [event.id, endpoint.id, nowMs, nowMs],
            );
          }
          await tx.run("UPDATE webhook_events SET fanned_out_at = ? WHERE id = ?", [nowMs, event.id]);
        }
        return events.length;
      }),

    async claim(nowMs, leaseMs, limit, eventId) {
      const only = eventId === undefined ? "" : " AND d.event_id = ?";
      const leased = await sql.all<{ id: number }>(
        `UPDATE webhook_deliveries SET lease_until = ?, attempts = attempts + 1, last_attempt_at = ?
          WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                        WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)
                          AND e.disabled_at IS NULL${only}
                        ORDER BY d.next_attempt_at, d.id LIMIT ?${sql.dialect === "postgres" ? " FOR UPDATE OF d SKIP LOCKED" : ""})
          RETURNING id`,
        [nowMs + leaseMs, nowMs, nowMs, nowMs, ...(eventId === undefined ? [] : [eventId]), limit],
      );
      if (leased.length === 0) return [];
      const ids = leased.map((r) => r.id);
      return sql.all<ClaimedDelivery>(
        `SELECT d.id, d.endpoint_id, d.attempts, d.created_at, v.msg_id, v.type, v.data, v.created_at AS event_created_at, e.url, e.secret
           FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.id IN (${ids.map(() => "?").join(", ")}) ORDER BY d.id`,
        ids,
      );
    },

    delivered: (id, endpointId, nowMs, statusCode) =>
      sql.transaction(async (tx) => {
        await tx.run(
          "UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ?, last_status_code = ?, last_error = NULL, lease_until = NULL WHERE id = ?",
          [nowMs, statusCode, id],
        );
        await tx.run("UPDATE webhook_endpoints SET failure_streak = 0, failing_since = NULL WHERE id = ?", [endpointId]);
      }),

    attemptFailed: (id, endpointId, nowMs, outcome) =>
      sql.transaction(async (tx) => {
        await tx.run(
          `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?, lease_until = NULL
            WHERE id = ?`,
          [outcome.nextAttemptAt === null ? "failed" : "pending", outcome.nextAttemptAt ?? nowMs, outcome.statusCode, outcome.error, id],
        );
        const rows = await tx.all<{ failure_streak: number; failing_since: number }>(
          `UPDATE webhook_endpoints SET failure_streak = failure_streak + 1, failing_since = coalesce(failing_since, ?)
            WHERE id = ? RETURNING failure_streak, failing_since`,
          [nowMs, endpointId],
        );
        return { failureStreak: rows[0]?.failure_streak ?? 0, failingSince: rows[0]?.failing_since ?? nowMs };
      }),

    disableEndpoint: (id, nowMs, reason, event) =>
      sql.transaction(async (tx) => {
        const changed = await tx.run(
          "UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL",
          [nowMs, reason, id],
        );
        if (changed === 0) return false;
        await insertEvent(tx, event);
        return true;
      }),

    deliveries: (endpointId, limit) =>
      sql.all<DeliveryRecord>(
        `SELECT d.id, d.event_id, v.msg_id, v.type, d.status, d.attempts, d.created_at, d.last_attempt_at,
                CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS next_attempt_at,
                d.last_status_code, d.last_error, d.delivered_at
           FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
          WHERE d.endpoint_id = ? ORDER BY d.id DESC LIMIT ?`,
        [endpointId, limit],
      ),

    async usageBetween(workspaceId, fromMs, toMs) {
      const rows = await sql.all<{ kind: "write" | "read"; n: number }>(
        // Billable kinds only: forgetting records a "delete" event that is never billed.
        "SELECT kind, count(*) AS n FROM usage_events WHERE workspace_id = ? AND kind IN ('write', 'read') AND created_at >= ? AND created_at < ? GROUP BY kind",
        [workspaceId, fromMs, toMs],
      );
      const counts = { write: 0, read: 0 };
      for (const r of rows) counts[r.kind] = Number(r.n);
      return counts;
    },

    async workspaceOfRevokedKey(keyHash) {
      const rows = await sql.all<{ workspace_id: number }>(
        "SELECT workspace_id FROM api_keys WHERE key_hash = ? AND revoked_at IS NOT NULL",
        [keyHash],
      );
      return rows[0]?.workspace_id ?? null;
    },

    prune: (beforeMs) =>
      sql.transaction(async (tx) => {
        await tx.run("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ?", [beforeMs]);
        // Billing events keep their dedup key: a past cycle's summary must never be sent twice.
        await tx.run(
          "DELETE FROM webhook_events WHERE fanned_out_at IS NOT NULL AND created_at < ? " +
            "AND (dedup_key IS NULL OR dedup_key LIKE 'anomaly.%') " +
            "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)",
          [beforeMs],
        );
      }),
  };
}
