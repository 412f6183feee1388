// `brain-mcp admin import`: an export file (./format.ts) into a workspace, keeping each memory's own judgement,
// counters and timestamps. The whole file is checked before anything is written; a memory whose text or meta fails
// PII screening (the same screen as the API's store) is refused and reported by line (never its text) and the rest
// imports. Importing the same file again adds nothing.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { Embedder } from "../models/types.js";
import type { PiiType, PiiVerdict } from "../pipeline/pii/types.js";
import { screenMemory } from "../pipeline/screen.js";
import type { MemoryRecord, MemoryStore, WorkspaceTx } from "../store/types.js";
import type { Workspace } from "../types.js";
import {
  decodeVector,
  ExportLineError,
  fromMemoryLine,
  parseHeaderLine,
  parseMemoryLine,
  type HeaderLine,
  type MemoryLine,
} from "./format.js";

/** Memories embedded together and written in one transaction. */
export const IMPORT_BATCH = 64;
/** Problems listed before a file is given up on (the rest are not read). */
const MAX_PROBLEMS = 20;

export interface ImportDeps {
  store: MemoryStore;
  embedder: Embedder;
  screenPii: (text: string) => PiiVerdict;
  now?: () => Date;
}

/** Into an existing workspace, or a new one made with this name (and the file's plan and billing cycle). */
export type ImportTarget = { workspaceId: number } | { newWorkspaceName: string };

export interface ImportReport {
  workspace: Workspace;
  createdWorkspace: boolean;
  /** Memory lines in the file. */
  memories: number;
  imported: number;
  /** Already in the workspace (the same text created at the same millisecond), so not added again. */
  alreadyPresent: number;
  /** Embedded by the service's model (no vector in the file, or one from another model). */
  embedded: number;
  /** Refused by PII screening: the line and the kinds found, never the text. */
  refused: { line: number; pii_types: PiiType[] }[];
}

/** The file cannot be imported; nothing was written. */
export class ImportFileError extends Error {
  constructor(readonly problems: ExportLineError[]) {
    const shown = problems.map((p) => p.message).join("\n");
    super(`the file was not imported (nothing was written):\n${shown}`);
    this.name = "ImportFileError";
  }
}

/**
 * What identifies a memory across stores and round trips: its text and the millisecond it was created. Ids are the
 * store's own and change; these two never do.
 */
export function memoryIdentity(text: string, createdAtMs: number): string {
  return `${createdAtMs}:${createHash("sha256").update(text).digest("hex")}`;
}

async function* readLines(path: string): AsyncGenerator<{ raw: string; line: number }> {
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  let line = 0;
  for await (const raw of lines) yield { raw, line: ++line };
}

interface Checked {
  header: HeaderLine;
  refused: Map<number, PiiType[]>;
}

/** Pass one: every line parsed and checked, and screened for PII; throws ImportFileError listing the problems. */
async function checkFile(path: string, screenPii: ImportDeps["screenPii"]): Promise<Checked> {
  const problems: ExportLineError[] = [];
  const refused = new Map<number, PiiType[]>();
  let header: HeaderLine | undefined;
  let last = 0;
  for await (const { raw, line } of readLines(path)) {
    last = line;
    try {
      if (line === 1) {
        header = parseHeaderLine(raw);
        continue;
      }
      if (!header) break; // a bad header: the lines after it mean nothing
      if (raw.trim() === "") throw new ExportLineError(line, "an empty line (every line after the header is one memory)");
      const memory = parseMemoryLine(raw, line);
      const verdict = screenMemory(memory.text, memory.meta, screenPii);
      if (!verdict.ok) refused.set(line, verdict.types);
    } catch (err) {
      if (!(err instanceof ExportLineError)) throw err;
      problems.push(err);
      if (problems.length >= MAX_PROBLEMS || line === 1) break;
    }
  }
  if (last === 0) problems.push(new ExportLineError(1, "the file is empty"));
  if (header && problems.length === 0 && last - 1 !== header.memories) {
    const problem =
      last - 1 < header.memories
        ? `the file ends here, but its header announces ${header.memories} memories: the file is truncated`
        : `more lines than the ${header.memories} memories its header announces`;
    problems.push(new ExportLineError(last - 1 < header.memories ? last + 1 : header.memories + 2, problem));
  }
  if (problems.length > 0 || !header) throw new ImportFileError(problems);
  return { header, refused };
}

interface Pending {
  line: number;
  identity: string;
  memory: MemoryLine;
  vector?: Float32Array;
}

/** The vector a line carries, when it came from the model this service embeds with. */
function usableVector(memory: MemoryLine, embedder: Embedder): Float32Array | undefined {
  if (memory.vector === undefined || memory.model !== embedder.id) return undefined;
  const vector = decodeVector(memory.vector);
  return vector.length === embedder.dimensions ? vector : undefined;
}

/** Inserts the memory as the file has it: the store's insert starts counters at zero, the patch restores them. */
async function restoreMemory(tx: WorkspaceTx, pending: Pending, embedderId: string): Promise<MemoryRecord> {
  const m = fromMemoryLine(pending.memory);
  let record = await tx.insertMemory({
    workspace_id: tx.workspaceId,
    text: m.text,
    meta: m.meta,
    vector: pending.vector!,
    embedder_id: embedderId,
    importance: m.importance,
    temporal_type: m.temporal_type,
    valid_until: m.valid_until,
    categories: m.categories,
    created_at: m.created_at,
  });
  if (m.access_count !== 0 || m.last_accessed_at !== null || m.updated_at !== m.created_at) {
    const patch = { access_count: m.access_count, last_accessed_at: m.last_accessed_at };
    record = (await tx.updateMemory(record.id, patch, m.updated_at))!;
  }
  return record;
}

/** The workspace to import into (null: one to create), or why there is none; runs before the model loads. */
export async function resolveTarget(store: MemoryStore, target: ImportTarget): Promise<Workspace | null> {
  if ("workspaceId" in target) {
    const workspace = await store.getWorkspace(target.workspaceId);
    if (!workspace)
      throw new Error(
        `workspace ${target.workspaceId} does not exist (\`brain-mcp admin workspace list\` shows them); nothing was imported`,
      );
    return workspace;
  }
  const taken = (await store.listWorkspaces()).find((w) => w.workspace.name === target.newWorkspaceName);
  if (taken) {
    throw new Error(
      `a workspace named "${target.newWorkspaceName}" exists already (id ${taken.workspace.id}): ` +
        `import into it with --workspace ${taken.workspace.id}, or choose another name; nothing was imported`,
    );
  }
  return null;
}

export async function importFile(
  deps: ImportDeps,
  path: string,
  target: ImportTarget,
  opts: { onProgress?: (done: number, total: number) => void } = {},
): Promise<ImportReport> {
  const { store, embedder } = deps;
  const now = deps.now ?? (() => new Date());
  const existing = await resolveTarget(store, target);
  const { header, refused } = await checkFile(path, deps.screenPii);

  const workspace =
    existing ??
    (await store.insertWorkspace({
      name: (target as { newWorkspaceName: string }).newWorkspaceName,
      plan: header.workspace.plan,
      billing_cycle: header.workspace.billing_cycle,
      status: "active",
      created_at: now().getTime(),
    }));
  const present = new Set<string>();
  let seenRev = 0;
  for (const m of await store.listMemories(workspace.id)) {
    present.add(memoryIdentity(m.text, m.created_at));
    seenRev = Math.max(seenRev, m.rev);
  }

  const report: ImportReport = {
    workspace,
    createdWorkspace: existing === null,
    memories: header.memories,
    imported: 0,
    alreadyPresent: 0,
    embedded: 0,
    refused: [...refused].map(([line, pii_types]) => ({ line, pii_types })),
  };
  let read = 0; // memory lines read so far, for progress
  const flush = async (batch: Pending[]) => {
    const toEmbed = batch.filter((p) => !p.vector);
    if (toEmbed.length > 0) {
      // The model runs before the workspace's write lock is taken, as in the write pipeline.
      const vectors = await embedder.embed(
        toEmbed.map((p) => p.memory.text),
        "document",
      );
      toEmbed.forEach((p, i) => (p.vector = vectors[i]));
    }
    // Counted once the transaction commits, so a failure reports only what was written.
    const written = await store.writeInWorkspace(workspace.id, async (tx) => {
      const seen = new Set<string>();
      let rev = seenRev;
      // Under the lock: memories another writer committed since we looked count as present too.
      for (const v of await tx.vectorsSince(seenRev)) {
        const m = await tx.getMemory(v.id);
        if (m) seen.add(memoryIdentity(m.text, m.created_at));
        rev = Math.max(rev, v.rev);
      }
      const added: Pending[] = [];
      for (const p of batch) {
        if (present.has(p.identity) || seen.has(p.identity)) continue;
        const record = await restoreMemory(tx, p, embedder.id);
        seen.add(p.identity);
        rev = Math.max(rev, record.rev);
        added.push(p);
      }
      return { seen, rev, added };
    });
    for (const identity of written.seen) present.add(identity);
    seenRev = written.rev;
    report.imported += written.added.length;
    report.alreadyPresent += batch.length - written.added.length;
    report.embedded += written.added.filter((p) => toEmbed.includes(p)).length;
    opts.onProgress?.(read, header.memories);
  };

  try {
    let batch: Pending[] = [];
    for await (const { raw, line } of readLines(path)) {
      if (line === 1) continue;
      read = line - 1;
      if (refused.has(line)) continue;
      const memory = parseMemoryLine(raw, line);
      const identity = memoryIdentity(memory.text, Date.parse(memory.created_at));
      if (present.has(identity)) {
        report.alreadyPresent++;
        continue;
      }
      batch.push({ line, identity, memory, vector: usableVector(memory, embedder) });
      if (batch.length >= IMPORT_BATCH) {
        await flush(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await flush(batch);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(
      `the import stopped after ${report.imported} memories were written to workspace ${workspace.id} (${message}); ` +
        `run it again with --workspace ${workspace.id} to complete it (what is there already is skipped)`,
      { cause: err },
    );
  }
  opts.onProgress?.(read, header.memories);
  return report;
}
