// A retrieval's bookkeeping (access counts, last-access times, the "read" usage event) is not what the caller waits
// for: it is gathered here and written in one transaction every FLUSH_INTERVAL_MS (or sooner when many are waiting),
// off the request path. A clean stop writes what is waiting; a crash loses at most the last interval's reads (never a
// memory). Until written, the counts are laid over the records retrieval reads, so answers stay exact. The interval's
// write never waits for another process's lock (on SQLite that wait would be a sleep of this thread, every request held
// behind it): a busy store leaves the reads gathered for the next interval. An asked-for flush and a clean stop wait.
import type { MemoryRecord, MemoryStore, ReadsBatch } from "./store/types.js";
import type { ServiceLog } from "./types.js";

/** How often gathered reads are written: the most a crash can lose. */
export const FLUSH_INTERVAL_MS = 50;
/** Reads gathered before a write is started without waiting for the interval. */
const FLUSH_AT_READS = 500;

interface WorkspaceReads {
  touched: Map<number, { count: number; lastAtMs: number }>;
  readsAtMs: number[];
}

/** Reads written as they happen, for callers without a batching service (the dashboard counts no recalls). */
export function directReads(store: MemoryStore): Pick<ReadBookkeeping, "recordRead" | "withPendingReads"> {
  return { recordRead: (workspaceId, ids, nowMs) => store.recordRead(workspaceId, ids, nowMs), withPendingReads: (_, records) => records };
}

const noReads = (): WorkspaceReads => ({ touched: new Map(), readsAtMs: [] });

export interface ReadBookkeeping {
  /** Counts one retrieval that returned `ids` (resolves at once; the write follows). */
  recordRead(workspaceId: number, ids: readonly number[], nowMs: number): Promise<void>;
  /** The records as they will be once every gathered read is written. */
  withPendingReads(workspaceId: number, records: MemoryRecord[]): MemoryRecord[];
  /** Writes what is gathered now; resolves when it is committed (or rejects if the store refused it). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is gathered. */
  close(): Promise<void>;
}

export function batchReadBookkeeping(store: MemoryStore, log: ServiceLog, intervalMs = FLUSH_INTERVAL_MS): ReadBookkeeping {
  let gathered = new Map<number, WorkspaceReads>();
  /** Reads being written right now: still laid over records until their transaction commits. */
  let writing = new Map<number, WorkspaceReads>();
  let gatheredCount = 0;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let failing = false;

  function schedule(): void {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      void flush(false).catch(() => undefined); // logged in write(); the reads wait for the next interval
    }, intervalMs);
  }

  function merge(into: Map<number, WorkspaceReads>, from: Map<number, WorkspaceReads>): void {
    for (const [workspaceId, reads] of from) {
      const target = into.get(workspaceId) ?? noReads();
      into.set(workspaceId, target);
      for (const [id, t] of reads.touched) {
        const known = target.touched.get(id);
        target.touched.set(id, known ? { count: known.count + t.count, lastAtMs: Math.max(known.lastAtMs, t.lastAtMs) } : { ...t });
      }
      target.readsAtMs.push(...reads.readsAtMs);
    }
  }

  async function write(waitForLock: boolean): Promise<void> {
    if (gathered.size === 0) return;
    writing = gathered;
    gathered = new Map();
    gatheredCount = 0;
    const batches: ReadsBatch[] = [...writing].map(([workspaceId, r]) => ({
      workspaceId,
      touched: [...r.touched].map(([id, t]) => ({ id, ...t })),
      readsAtMs: r.readsAtMs,
    }));
    let written: boolean;
    try {
      written = await store.recordReads(batches, { waitForLock });
    } catch (error) {
      keep(batches);
      // once per outage, not every interval
      if (!failing) log.warn("retrieval bookkeeping not written yet; retrying", { error: (error as Error).message });
      failing = true;
      schedule();
      throw error;
    }
    if (written) {
      writing = new Map();
      if (failing) (failing = false), log.info("retrieval bookkeeping written again");
    } else {
      // Another process holds the store's write lock: not an outage, the next interval tries again.
      keep(batches);
      schedule();
    }
  }

  /** Kept for the next attempt (a store briefly unavailable or busy must not lose the counts). */
  function keep(batches: ReadsBatch[]): void {
    merge(gathered, writing);
    gatheredCount += batches.reduce((n, b) => n + b.readsAtMs.length, 0);
    writing = new Map();
  }

  /**
   * One write at a time, in order: a flush waits for the one running, then writes what gathered meanwhile. The
   * interval's own writes pass `waitForLock` false: a store busy with another process's write is left for the next one.
   */
  function flush(waitForLock = true): Promise<void> {
    running = running.catch(() => undefined).then(() => write(waitForLock));
    return running;
  }

  function overlay(workspaceId: number, record: MemoryRecord): MemoryRecord {
    let count = 0;
    const stored = record.last_accessed_at ?? 0;
    let lastAtMs = stored;
    // A write in flight may have committed already: a record read on another connection between its commit and its
    // answer reaching this thread holds its counts, and laying them over again counted them twice (a PostgreSQL
    // service answered the same question with another score, now and then, under load). The write sets each memory's
    // last access to at least its batch's latest read, so a record that shows that time already holds the batch.
    const inFlight = writing.get(workspaceId)?.touched.get(record.id);
    if (inFlight && stored < inFlight.lastAtMs) (count += inFlight.count), (lastAtMs = inFlight.lastAtMs);
    const waiting = gathered.get(workspaceId)?.touched.get(record.id);
    if (waiting) (count += waiting.count), (lastAtMs = Math.max(lastAtMs, waiting.lastAtMs));
    return count === 0 ? record : { ...record, access_count: record.access_count + count, last_accessed_at: lastAtMs };
  }

  return {
    async recordRead(workspaceId, ids, nowMs) {
      if (closed) return store.recordRead(workspaceId, ids, nowMs);
      const reads = gathered.get(workspaceId) ?? noReads();
      gathered.set(workspaceId, reads);
      for (const id of ids) {
        const known = reads.touched.get(id);
        reads.touched.set(id, { count: (known?.count ?? 0) + 1, lastAtMs: Math.max(known?.lastAtMs ?? 0, nowMs) });
      }
      reads.readsAtMs.push(nowMs);
      if (++gatheredCount >= FLUSH_AT_READS) void flush(false).catch(() => undefined);
      else schedule();
    },
    withPendingReads(workspaceId, records) {
      if (gathered.size === 0 && writing.size === 0) return records;
      return records.map((r) => overlay(workspaceId, r));
    },
    flush: () => flush(),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer), (timer = null);
      await flush();
    },
  };
}
