// The PostgreSQL schema as an ordered list of migrations. Applied on every start under an advisory lock, so several
// processes starting together migrate once; each version is recorded in `brain_migrations` and never re-run.
// Append new migrations; never edit an applied one.
import type { PoolClient } from "pg";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE workspaces (
        id            text PRIMARY KEY,
        name          text NOT NULL,
        plan          text NOT NULL,
        billing_cycle text NOT NULL,
        status        text NOT NULL,
        created_at    bigint NOT NULL
      );
      CREATE TABLE api_keys (
        id           text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        key_hash     text NOT NULL UNIQUE,
        prefix       text NOT NULL,
        created_at   bigint NOT NULL,
        revoked_at   bigint
      );
      CREATE INDEX api_keys_workspace ON api_keys (workspace_id);
      CREATE TABLE memories (
        id               text PRIMARY KEY,
        workspace_id     text NOT NULL REFERENCES workspaces(id),
        text             text NOT NULL,
        meta             text NOT NULL,
        vector           bytea NOT NULL,
        embedder_id      text NOT NULL,
        importance       integer NOT NULL,
        temporal_type    text NOT NULL,
        valid_until      bigint,
        categories       text NOT NULL,
        created_at       bigint NOT NULL,
        updated_at       bigint NOT NULL,
        last_accessed_at bigint,
        access_count     integer NOT NULL DEFAULT 0,
        rev              bigint NOT NULL
      );
      CREATE UNIQUE INDEX memories_workspace_rev ON memories (workspace_id, rev);
      CREATE INDEX memories_embedder ON memories (embedder_id);
      CREATE TABLE idempotency_keys (
        workspace_id text NOT NULL,
        key          text NOT NULL,
        request_hash text NOT NULL,
        response     text NOT NULL,
        created_at   bigint NOT NULL,
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX idempotency_keys_age ON idempotency_keys (workspace_id, created_at);
      CREATE TABLE usage_events (
        id           bigserial PRIMARY KEY,
        workspace_id text NOT NULL,
        kind         text NOT NULL,
        memory_id    text,
        created_at   bigint NOT NULL
      );
      CREATE INDEX usage_events_workspace ON usage_events (workspace_id, kind);
      -- Unlogged: no WAL, so no fsync per request; after a database crash the buckets simply start full.
      CREATE UNLOGGED TABLE rate_buckets (
        key_id     text PRIMARY KEY,
        tokens     double precision NOT NULL,
        updated_ms bigint NOT NULL,
        allowed    boolean NOT NULL
      );
      CREATE TABLE store_probe (
        id integer PRIMARY KEY,
        at bigint NOT NULL
      );
    `,
  },
];

/** One transaction-scoped advisory lock serializes migrating across processes. */
const MIGRATION_LOCK = "brain-mcp:migrate";

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function migrate(client: PoolClient): Promise<number[]> {
  const applied: number[] = [];
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS brain_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number }>("SELECT version FROM brain_migrations");
    const done = new Set(rows.map((r) => Number(r.version)));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await client.query("INSERT INTO brain_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
  return applied;
}
