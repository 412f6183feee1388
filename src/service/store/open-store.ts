// Picks the store: PostgreSQL when a database URL is given (it wins), else the SQLite file.
import type { ServiceLog } from "../types.js";
import type { MemoryStore } from "./types.js";

export interface StoreLocation {
  dbPath?: string;
  databaseUrl?: string;
}

/** `log` hears the PostgreSQL store's warnings (connection lost, unreachable, back); SQLite has none to give. */
export async function openStore(location: StoreLocation, opts: { log?: ServiceLog } = {}): Promise<MemoryStore> {
  if (location.databaseUrl) {
    // Loaded only when asked for: the pg driver is an optional dependency.
    const modulePath = "./postgres/index.js";
    const { openPostgresStore } = (await import(modulePath)) as {
      openPostgresStore: (databaseUrl: string, opts: { log?: ServiceLog }) => Promise<MemoryStore>;
    };
    return openPostgresStore(location.databaseUrl, { log: opts.log });
  }
  if (!location.dbPath) throw new Error("No store given: set a SQLite path (--db / BRAIN_DB) or BRAIN_DATABASE_URL.");
  const { openSqliteStore } = await import("./sqlite/index.js");
  return openSqliteStore(location.dbPath);
}
