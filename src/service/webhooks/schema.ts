// The webhook tables and the triggers that write lifecycle events into the outbox. A trigger runs inside the
// statement that changes a workspace's status or a key, so the event commits with that change or not at all, on
// every path that makes the change (admin, dashboard, first start). Appended to each store's migration list.

/** SQLite: one migration (the store records it in `PRAGMA user_version`). */
export const SQLITE_WEBHOOKS_MIGRATION = `
  CREATE TABLE webhook_endpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    events TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    disabled_at INTEGER,
    disabled_reason TEXT,
    failure_streak INTEGER NOT NULL DEFAULT 0,
    failing_since INTEGER
  );
  CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints(workspace_id);
  -- The outbox. endpoint_id is set only for a test event (sent to that endpoint alone); dedup_key makes derived
  -- events (billing, anomalies) exactly-once across processes.
  CREATE TABLE webhook_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    msg_id TEXT NOT NULL UNIQUE DEFAULT ('msg_' || lower(hex(randomblob(16)))),
    workspace_id INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    endpoint_id INTEGER,
    dedup_key TEXT UNIQUE,
    created_at INTEGER NOT NULL,
    fanned_out_at INTEGER
  );
  CREATE INDEX webhook_events_unsent ON webhook_events(id) WHERE fanned_out_at IS NULL;
  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id INTEGER NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
    endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending','delivered','failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER,
    last_attempt_at INTEGER,
    last_status_code INTEGER,
    last_error TEXT,
    delivered_at INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (event_id, endpoint_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
  -- A condition already announced (the quality score is low), so it is announced once until it clears.
  CREATE TABLE webhook_marks (
    workspace_id INTEGER NOT NULL,
    mark TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, mark)
  );

  CREATE TRIGGER webhook_workspace_status AFTER UPDATE OF status ON workspaces WHEN OLD.status <> NEW.status
  BEGIN
    INSERT INTO webhook_events (workspace_id, type, data, created_at)
    VALUES (NEW.id, 'workspace.' || NEW.status,
            json_object('workspace_id', NEW.id, 'workspace_name', NEW.name, 'status', NEW.status, 'previous_status', OLD.status),
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
  END;
  CREATE TRIGGER webhook_key_created AFTER INSERT ON api_keys
  BEGIN
    INSERT INTO webhook_events (workspace_id, type, data, created_at)
    VALUES (NEW.workspace_id, 'key.created',
            json_object('workspace_id', NEW.workspace_id, 'key_id', NEW.id, 'api_key_prefix', NEW.prefix), NEW.created_at);
  END;
  CREATE TRIGGER webhook_key_revoked AFTER UPDATE OF revoked_at ON api_keys
    WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
  BEGIN
    INSERT INTO webhook_events (workspace_id, type, data, created_at)
    VALUES (NEW.workspace_id, 'key.revoked',
            json_object('workspace_id', NEW.workspace_id, 'key_id', NEW.id, 'api_key_prefix', NEW.prefix), NEW.revoked_at);
  END;
`;

/** PostgreSQL: the same tables and triggers (recorded in `brain_migrations`). */
export const POSTGRES_WEBHOOKS_MIGRATION = `
  CREATE TABLE webhook_endpoints (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id    bigint NOT NULL REFERENCES workspaces(id),
    url             text NOT NULL,
    secret          text NOT NULL,
    events          text NOT NULL,
    created_at      bigint NOT NULL,
    disabled_at     bigint,
    disabled_reason text,
    failure_streak  integer NOT NULL DEFAULT 0,
    failing_since   bigint
  );
  CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id);
  CREATE TABLE webhook_events (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    msg_id        text NOT NULL UNIQUE DEFAULT ('msg_' || replace(gen_random_uuid()::text, '-', '')),
    workspace_id  bigint NOT NULL,
    type          text NOT NULL,
    data          text NOT NULL,
    endpoint_id   bigint,
    dedup_key     text UNIQUE,
    created_at    bigint NOT NULL,
    fanned_out_at bigint
  );
  CREATE INDEX webhook_events_unsent ON webhook_events (id) WHERE fanned_out_at IS NULL;
  CREATE TABLE webhook_deliveries (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id         bigint NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
    endpoint_id      bigint NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    status           text NOT NULL CHECK (status IN ('pending','delivered','failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  bigint NOT NULL,
    lease_until      bigint,
    last_attempt_at  bigint,
    last_status_code integer,
    last_error       text,
    delivered_at     bigint,
    created_at       bigint NOT NULL,
    UNIQUE (event_id, endpoint_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
  CREATE TABLE webhook_marks (
    workspace_id bigint NOT NULL,
    mark         text NOT NULL,
    created_at   bigint NOT NULL,
    PRIMARY KEY (workspace_id, mark)
  );

  CREATE FUNCTION brain_webhook_workspace_status() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO webhook_events (workspace_id, type, data, created_at)
    VALUES (NEW.id, 'workspace.' || NEW.status,
            json_build_object('workspace_id', NEW.id, 'workspace_name', NEW.name, 'status', NEW.status,
                              'previous_status', OLD.status)::text,
            (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
    RETURN NULL;
  END $$;
  CREATE TRIGGER webhook_workspace_status AFTER UPDATE OF status ON workspaces
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION brain_webhook_workspace_status();

  CREATE FUNCTION brain_webhook_key() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO webhook_events (workspace_id, type, data, created_at)
    VALUES (NEW.workspace_id, CASE WHEN TG_OP = 'INSERT' THEN 'key.created' ELSE 'key.revoked' END,
            json_build_object('workspace_id', NEW.workspace_id, 'key_id', NEW.id, 'api_key_prefix', NEW.prefix)::text,
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE NEW.revoked_at END);
    RETURN NULL;
  END $$;
  CREATE TRIGGER webhook_key_created AFTER INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION brain_webhook_key();
  CREATE TRIGGER webhook_key_revoked AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION brain_webhook_key();
`;
