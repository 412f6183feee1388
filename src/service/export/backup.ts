// `brain-mcp admin backup`: a consistent copy of a live SQLite store, taken with SQLite's `VACUUM INTO` while the
// service keeps serving (WAL: its writers never wait for the copy). VACUUM INTO writes the live rows only, into fresh
// pages: a forgotten memory's text left in the store's free pages or free space never reaches a backup.
import { closeSync, existsSync, fchmodSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { loadDriver } from "../store/sqlite/index.js";

/** How long the backup waits for a writer's transaction before SQLite reports busy (as the store does). */
const BUSY_TIMEOUT_MS = 15_000;

/** A backup holds every workspace's memories and the webhook secrets: owner-only, whatever the umask. */
export const BACKUP_FILE_MODE = 0o600;

export interface BackupResult {
  /** Pages of the copy (the database's page size each). */
  pages: number;
  bytes: number;
}

/**
 * Copies the SQLite file at `dbPath` to `outPath` as it stands at one moment. The copy is written beside `outPath`
 * (created 0600 before a byte is written) and renamed into place when complete, so a failed backup leaves no partial
 * file; an existing `outPath` is refused.
 */
export async function backupSqlite(dbPath: string, outPath: string): Promise<BackupResult> {
  if (!existsSync(dbPath)) throw new Error(`no SQLite store at ${dbPath}`);
  if (existsSync(outPath)) throw new Error(`${outPath} exists already; choose a new file name (a backup never overwrites)`);
  const Database = loadDriver();
  const db = new Database(dbPath, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  const partial = `${outPath}.partial`;
  try {
    // VACUUM INTO fills an existing empty file and keeps its mode; the umask cannot widen an explicit chmod.
    const fd = openSync(partial, "wx", BACKUP_FILE_MODE);
    try {
      fchmodSync(fd, BACKUP_FILE_MODE);
    } finally {
      closeSync(fd);
    }
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    // One read transaction: the copy is the store at one moment, and writers meanwhile are not blocked.
    db.prepare("VACUUM INTO ?").run(partial);
    renameSync(partial, outPath);
    const bytes = statSync(outPath).size;
    return { pages: Math.round(bytes / pageSize), bytes };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    db.close();
  }
}
