// The WAL's checkpoints off the service's thread (branch `sqltail`). SQLite's automatic checkpoint runs inside
// whichever commit leaves 1,000 frames in the WAL: that commit copies the pages into the file and fsyncs twice on the
// only thread the service has (9-44 ms measured at 10,000 memories, test/bench/README.md), inside a store's answer or
// a bookkeeping flush that requests wait behind. Here a connection of its own, in a worker thread, runs a PASSIVE
// checkpoint once the WAL holds CHECKPOINT_FRAMES: no lock taken, writers go on. The WAL starts over at the first write
// after a checkpoint that left no frame behind; one that commits landed during is asked again CHECKPOINT_FRAMES later
// (one in a quiet moment completes). The store's connection keeps SQLite's automatic checkpoint as the bound
// (WAL_BOUND_FRAMES): under writes that never pause it runs inside a commit as before, but finds only the frames since
// the thread's last pass to copy. A checkpoint changes nothing a commit made durable (its frames are in the WAL,
// synced as before). The connection's first checkpoint stays SQLite's own, inside a commit: a process that writes
// little (an MCP session of 60 remembers and 30 recalls reaches one) never starts the thread, which holds about 10 MB
// (`--embedded` has a 300 MB goal). The thread starts when a checkpoint is due and ends after CHECKPOINTER_IDLE_MS
// without one.
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import { Worker } from "node:worker_threads";

/** A PASSIVE checkpoint is due once the WAL holds this many frames (SQLite's own default wal_autocheckpoint). */
export const CHECKPOINT_FRAMES = 1000;
/** The store's connection checkpoints by itself at this many frames: the WAL's bound when the thread is behind. */
export const WAL_BOUND_FRAMES = 4000;
/** The thread ends after this long without a checkpoint to run. */
export const CHECKPOINTER_IDLE_MS = 30_000;

/** The thread: one connection to the file (never created here), a PASSIVE checkpoint per message. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
db.pragma("cache_size = 16");
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ ok: true, busy: result.busy, log: result.log, checkpointed: result.checkpointed });
  } catch (err) {
    parentPort.postMessage({ ok: false, code: err && err.code });
  }
});
`;

export interface CheckpointResult {
  ok: boolean;
  busy?: number;
  log?: number;
  checkpointed?: number;
  code?: string;
}

export interface Checkpointer {
  /** After a write: asks the thread for a checkpoint when one is due. Cheap (one 4-byte read of the -shm file). */
  afterWrite(): void;
  /** Ends the thread and its connection (awaited before the store's own connection closes). */
  close(): Promise<void>;
  /** What the thread did, for tests and benchmarks. */
  readonly stats: { checkpoints: number; started: number; exited: number; failed: boolean; last: CheckpointResult | null };
}

/**
 * The frames in the WAL now: mxFrame of the wal-index header at the start of the -shm file (byte 16, native byte
 * order; https://www.sqlite.org/walformat.html), or null when the file cannot be read.
 */
function walFramesReader(path: string): { read(): number | null; close(): void } {
  const buf = Buffer.alloc(4);
  const little = endianness() === "LE";
  let fd: number | null = null;
  return {
    read() {
      try {
        fd ??= openSync(`${path}-shm`, "r");
        if (readSync(fd, buf, 0, 4, 16) !== 4) return null;
        return little ? buf.readUInt32LE(0) : buf.readUInt32BE(0);
      } catch {
        return null;
      }
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/**
 * `bound(frames)` sets the store's connection's own checkpoint threshold (wal_autocheckpoint): left at SQLite's
 * default (CHECKPOINT_FRAMES) for the connection's first checkpoint, then raised to WAL_BOUND_FRAMES.
 */
export function createCheckpointer(
  path: string,
  driver: string,
  bound: (frames: number) => void,
  idleMs = CHECKPOINTER_IDLE_MS,
): Checkpointer {
  const walFrames = walFramesReader(path);
  /** Whether checkpoints are this thread's (after the first, which SQLite ran inside a commit, as it always did). */
  let threaded = false;
  let lastFrames = 0;
  let worker: Worker | null = null;
  let pending = false;
  /** The WAL's frames when the last checkpoint was asked for: one that could not finish (a reader) is not re-asked at once. */
  let askedAt = 0;
  let idle: NodeJS.Timeout | null = null;
  let closed = false;
  const stats: Checkpointer["stats"] = { checkpoints: 0, started: 0, exited: 0, failed: false, last: null };

  function start(): Worker {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver } });
    stats.started++;
    // A checkpoint left unfinished by an exit is safe (SQLite's own recovery), so the thread never holds the process.
    w.unref();
    w.on("message", (result: CheckpointResult) => {
      pending = false;
      stats.checkpoints++;
      stats.last = result;
      restIdle();
    });
    w.on("error", () => {
      // SQLite's own checkpoint (WAL_BOUND_FRAMES) keeps the WAL bounded; no thread is started again.
      stats.failed = true;
    });
    w.on("exit", () => {
      stats.exited++;
      if (worker === w) worker = null;
      pending = false;
    });
    worker = w;
    restIdle();
    return w;
  }

  /** The thread ends idleMs after it started or last checkpointed. */
  function restIdle(): void {
    if (idle) clearTimeout(idle);
    idle = setTimeout(stop, idleMs);
    idle.unref();
  }

  function stop(): void {
    idle = null;
    if (!worker || pending) return;
    worker.postMessage("close");
    worker = null;
  }

  return {
    stats,
    afterWrite() {
      if (closed || pending || stats.failed) return;
      const frames = walFrames.read();
      if (frames === null) return;
      if (!threaded) {
        // The WAL started over: a checkpoint ran (the connection's own, at CHECKPOINT_FRAMES, or another's). A process
        // that writes little (an MCP session of a few hundred facts) stops at that one and never carries the thread;
        // one that keeps writing has the later ones done off its thread.
        if (frames < lastFrames) {
          threaded = true;
          bound(WAL_BOUND_FRAMES);
        }
        lastFrames = frames;
        return;
      }
      if (frames < CHECKPOINT_FRAMES) return;
      // The WAL restarted since (frames < askedAt), or grew another CHECKPOINT_FRAMES past one that could not finish.
      if (askedAt > 0 && frames >= askedAt && frames - askedAt < CHECKPOINT_FRAMES) return;
      askedAt = frames;
      pending = true;
      // Started when a checkpoint is due (its start, tens of milliseconds, only delays that checkpoint).
      worker ??= start();
      worker.postMessage("checkpoint");
    },
    async close() {
      closed = true;
      if (idle) clearTimeout(idle);
      walFrames.close();
      const w = worker;
      worker = null;
      if (w) {
        const exited = new Promise<void>((resolve) => w.once("exit", () => resolve()));
        w.postMessage("close");
        const timer = setTimeout(() => void w.terminate(), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
