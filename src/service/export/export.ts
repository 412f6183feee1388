// `brain-mcp admin export`: one workspace as an export file (./format.ts), read straight from the store.
import { once } from "node:events";
import type { Writable } from "node:stream";
import type { MemoryRecord, MemoryStore, VectorRecord } from "../store/types.js";
import { toHeaderLine, toMemoryLine } from "./format.js";

/** Vectors read from the store per query when `--vectors` is asked for (4 KiB or so each). */
const VECTOR_PAGE = 2_000;

export interface ExportOptions {
  /** Include each memory's vector and the model that made it. */
  vectors?: boolean;
  now?: () => Date;
  /** Told after each memory written (a terminal shows it as progress). */
  onProgress?: (done: number, total: number) => void;
}

/** The embedder most of the memories were embedded by (all of them, unless a re-embed is pending). */
function mainModel(memories: readonly MemoryRecord[]): string | null {
  const counts = new Map<string, number>();
  for (const m of memories) counts.set(m.embedder_id, (counts.get(m.embedder_id) ?? 0) + 1);
  let best: string | null = null;
  for (const [model, n] of counts) if (best === null || n > counts.get(best)!) best = model;
  return best;
}

async function readVectors(store: MemoryStore, workspaceId: number): Promise<Map<number, VectorRecord>> {
  const vectors = new Map<number, VectorRecord>();
  for (let since = 0; ; ) {
    const page = await store.vectorsSince(workspaceId, since, VECTOR_PAGE);
    for (const v of page) vectors.set(v.id, v);
    if (page.length < VECTOR_PAGE) return vectors;
    since = page[page.length - 1]!.rev;
  }
}

/** Writes the workspace's header and memories (oldest first) to `out`; returns how many memories it wrote. */
export async function exportWorkspace(store: MemoryStore, workspaceId: number, out: Writable, opts: ExportOptions = {}): Promise<number> {
  const workspace = await store.getWorkspace(workspaceId);
  if (!workspace) throw new Error(`workspace ${workspaceId} does not exist (\`brain-mcp admin workspace list\` shows them)`);
  // Oldest first, on every store: an import then assigns ids in the same order.
  const memories = (await store.listMemories(workspaceId)).sort((a, b) => a.created_at - b.created_at || a.id - b.id);
  const vectors = opts.vectors ? await readVectors(store, workspaceId) : undefined;
  const nowMs = (opts.now ?? (() => new Date()))().getTime();
  // A failed write (a full disk, a closed pipe) is reported by the stream's 'error' event: kept and thrown here.
  let failure: Error | undefined;
  const noteFailure = (err: Error) => (failure ??= err);
  out.on("error", noteFailure);
  const writeLine = async (value: unknown) => {
    if (failure) throw failure;
    if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, "drain"); // rejects on 'error'
  };
  try {
    await writeLine(toHeaderLine(workspace, mainModel(memories), memories.length, nowMs));
    let done = 0;
    for (const memory of memories) {
      // A vector read after a write changed its memory (another rev) is left out: the import embeds that text again.
      const vector = vectors?.get(memory.id);
      await writeLine(toMemoryLine(memory, vector?.rev === memory.rev ? vector.vector : undefined));
      done++;
      opts.onProgress?.(done, memories.length);
    }
    if (failure) throw failure;
    return done;
  } finally {
    out.off("error", noteFailure);
  }
}
