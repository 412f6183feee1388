// Every call to PostgreSQL has a time bound. A database that hangs (a frozen host, a partition that drops packets)
// must cost a request a few seconds and a 503 `store_unavailable`, never the whole outage:
// - the server cancels a statement that runs, or waits for a lock, longer than the bound (statement_timeout,
//   lock_timeout, which also covers the per-workspace advisory lock);
// - the client gives up on an answer that never comes (pg's query_timeout, a little after the server's own bound),
//   and the pool destroys that connection rather than reuse it;
// - waiting for a connection is bounded (connectionTimeoutMillis), and idle sockets send TCP keepalives, so a peer
//   that vanished is found; a transaction left idle by a stuck process is ended by the server.
// The pool replaces destroyed connections by itself when the database answers again.
import type { PoolClient, PoolConfig } from "pg";

/** Statement and lock bound on the server, in ms (`BRAIN_PG_STATEMENT_TIMEOUT_MS`). */
export const STATEMENT_TIMEOUT_MS_DEFAULT = 5_000;
/** The client waits this much longer than the server's bound before it gives the connection up. */
const CLIENT_GRACE_MS = 1_000;
/** Waiting for a pooled connection, in ms, unless the store's options set it. */
const CONNECT_TIMEOUT_MS_DEFAULT = 5_000;
/** First TCP keepalive probe after this much idle time. */
const KEEPALIVE_IDLE_MS = 10_000;
/** A transaction idle this long (its process stuck or gone) is ended by the server. */
const IDLE_IN_TRANSACTION_MS = 60_000;

export interface PoolBounds {
  statementTimeoutMs: number;
}

function positiveMs(raw: string | undefined, fallback: number): number {
  const n = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** The bounds from the environment, or the defaults. */
export function poolBounds(env: NodeJS.ProcessEnv = process.env): PoolBounds {
  return {
    statementTimeoutMs: positiveMs(env.BRAIN_PG_STATEMENT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS_DEFAULT),
  };
}

/** `config` with every bound set; the store's pool is made from this. */
export function boundedPoolConfig(config: PoolConfig, bounds: PoolBounds = poolBounds()): PoolConfig {
  const ms = bounds.statementTimeoutMs;
  return {
    ...config,
    connectionTimeoutMillis: config.connectionTimeoutMillis || CONNECT_TIMEOUT_MS_DEFAULT,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    statement_timeout: ms,
    lock_timeout: ms,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    query_timeout: ms + CLIENT_GRACE_MS,
  };
}

/**
 * Runs `work` with the statement bounds lifted on one checked-out connection, for work that is long by nature
 * (schema migrations on a large table); they are back before the connection returns to the pool.
 */
export async function withoutBounds<T>(client: PoolClient, work: () => Promise<T>): Promise<T> {
  const params = (client as unknown as { connectionParameters: { query_timeout?: number } }).connectionParameters;
  const clientBound = params.query_timeout;
  params.query_timeout = 0;
  try {
    await client.query("SET statement_timeout = 0; SET lock_timeout = 0");
    const result = await work();
    await client.query("RESET statement_timeout; RESET lock_timeout");
    return result;
  } finally {
    params.query_timeout = clientBound;
  }
}
