// `brain-mcp admin backup`: a consistent copy of a live SQLite store, taken with SQLite's online backup API while
// the service keeps serving (WAL: its writers never wait for the copy).
import { existsSync, renameSync, rmSync } from "node:fs";
import { loadDriver } from "../store/sqlite/index.js";

/** How long the backup waits for a writer's transaction before SQLite reports busy (as the store does). */
const BUSY_TIMEOUT_MS = 15_000;

export interface BackupResult {
  /** Pages of the copy (the database's page size each). */
  pages: number;
  bytes: number;
}

/**
 * Copies the SQLite file at `dbPath` to `outPath` as it stands at one moment. The copy is written beside `outPath`
 * and renamed into place when complete, so a failed backup leaves no partial file; an existing `outPath` is refused.
 */
export async function backupSqlite(dbPath: string, outPath: string): Promise<BackupResult> {
  if (!existsSync(dbPath)) throw new Error(`no SQLite store at ${dbPath}`);
  if (existsSync(outPath)) throw new Error(`${outPath} exists already; choose a new file name (a backup never overwrites)`);
  const Database = loadDriver();
  const db = new Database(dbPath, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  const partial = `${outPath}.partial`;
  try {
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    // Every page in one step: one read transaction sees one moment, and a write meanwhile cannot restart the copy.
    const done = await db.backup(partial, { progress: ({ totalPages }) => Math.max(totalPages, 1) });
    renameSync(partial, outPath);
    return { pages: done.totalPages, bytes: done.totalPages * pageSize };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    db.close();
  }
}
