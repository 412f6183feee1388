// The row shapes both stores read (SQLite and PostgreSQL keep the same columns), and their records.
import { isoSeconds } from "../time.js";
import type { Workspace } from "../types.js";
import type { MemoryRecord, NewWorkspace } from "./types.js";

export interface MemoryRow {
  id: number;
  workspace_id: number;
  text: string;
  meta: string;
  embedder_id: string;
  importance: number;
  temporal_type: MemoryRecord["temporal_type"];
  valid_until: number | null;
  categories: string;
  created_at: number;
  updated_at: number;
  last_accessed_at: number | null;
  access_count: number;
  rev: number;
}

/** A workspaces row: the columns as written, and the id the store assigned. */
export type WorkspaceRow = NewWorkspace & { id: number };

export function toMemory(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    text: row.text,
    meta: JSON.parse(row.meta) as Record<string, unknown>,
    embedder_id: row.embedder_id,
    importance: row.importance,
    temporal_type: row.temporal_type,
    valid_until: row.valid_until,
    categories: JSON.parse(row.categories) as string[],
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_accessed_at: row.last_accessed_at,
    access_count: row.access_count,
    rev: row.rev,
  };
}

/**
 * toMemory of a row read as an array, its values in MEMORY_COLUMNS' order (./shared-sql.ts): a retrieve reads tens of
 * candidates' records, and the SQLite driver builds an array per row in about half the time of an object.
 */
export function memoryFromColumns(r: readonly unknown[]): MemoryRecord {
  return {
    id: r[0] as number,
    workspace_id: r[1] as number,
    text: r[2] as string,
    meta: JSON.parse(r[3] as string) as Record<string, unknown>,
    embedder_id: r[4] as string,
    importance: r[5] as number,
    temporal_type: r[6] as MemoryRecord["temporal_type"],
    valid_until: r[7] as number | null,
    categories: JSON.parse(r[8] as string) as string[],
    created_at: r[9] as number,
    updated_at: r[10] as number,
    last_accessed_at: r[11] as number | null,
    access_count: r[12] as number,
    rev: r[13] as number,
  };
}

export function toWorkspace(row: WorkspaceRow): Workspace {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    billing_cycle: row.billing_cycle,
    status: row.status,
    created_at: isoSeconds(row.created_at),
  };
}

/** A LIKE pattern matching every string that starts with `prefix` (its own % _ and \ taken literally; ESCAPE '\'). */
export function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + "%";
}
