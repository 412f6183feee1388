// `brain-mcp admin export | import | backup`: a workspace to and from an export file, and a copy of a live SQLite
// store. Operator tools on the service's own store, like the rest of `admin`; the API is not involved.
import { createWriteStream, existsSync, linkSync, rmSync, statSync } from "node:fs";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { loadOptional } from "../service/process/optional-deps.js";
import type { ServiceLog } from "../service/types.js";
import { parseId, UsageError } from "./admin-usage.js";
import type { StoreLocation } from "./serve.js";

export type TransferFlags = { workspace?: string; out?: string; vectors?: boolean; new?: string };

export interface TransferOutput {
  json: Record<string, unknown>;
  human: string[];
  /** Lines for stderr (refused memories), apart from the summary. */
  warnings?: string[];
  /** Where the summary goes: stderr when stdout carries the export itself. */
  toStderr?: boolean;
  exitCode?: number;
}

/** A running count on stderr, only when stderr is a terminal (never in logs or pipes); cleared when done. */
function terminalProgress(label: string): { update?: (done: number, total: number) => void; end(): void } {
  if (!process.stderr.isTTY) return { end() {} };
  let shownAt = 0;
  let shown = false;
  return {
    update(done, total) {
      const at = Date.now();
      if (at - shownAt < 200 && done < total) return;
      shownAt = at;
      shown = true;
      process.stderr.write(`\r${label} ${done.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} memories`);
    },
    end() {
      if (shown) process.stderr.write("\r\u001b[2K");
    },
  };
}

/** An export, like a backup, never overwrites a file: the message says so before the store is opened. */
function refuseExisting(path: string): void {
  if (existsSync(path) && statSync(path).isFile()) {
    throw new Error(`${path} exists already; choose a new file name (an export, like a backup, never overwrites)`);
  }
}

/**
 * Writes through `write` into FILE.partial, linked to FILE when complete (failing if FILE appeared meanwhile), so a
 * failure leaves no FILE. A FILE that exists and is not a regular file (a pipe, /dev/stdout) is written in place.
 */
async function writeNewFile<T>(path: string, write: (out: Writable) => Promise<T>): Promise<T> {
  refuseExisting(path);
  const inPlace = existsSync(path);
  const target = inPlace ? path : `${path}.partial`;
  const out = createWriteStream(target, { mode: 0o600 });
  try {
    const result = await write(out);
    out.end();
    await finished(out);
    if (!inPlace) {
      try {
        linkSync(target, path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") refuseExisting(path);
        throw err;
      } finally {
        rmSync(target, { force: true });
      }
    }
    return result;
  } catch (err) {
    out.destroy();
    if (!inPlace) rmSync(target, { force: true });
    throw err;
  }
}

const memories = (n: number) => `${n} memor${n === 1 ? "y" : "ies"}`;

async function runExport(location: StoreLocation, log: ServiceLog, workspaceId: number, flags: TransferFlags): Promise<TransferOutput> {
  const [{ openStore }, { exportWorkspace }] = await Promise.all([
    loadOptional(() => import("../service/store/open-store.js")),
    import("../service/export/export.js"),
  ]);
  const store = await loadOptional(() => openStore(location, { log }));
  try {
    const vectors = flags.vectors === true;
    if (flags.out === undefined) {
      const count = await exportWorkspace(store, workspaceId, process.stdout, { vectors }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "EPIPE") throw err;
        throw new Error("stdout was closed before the export was complete (EPIPE); the output is incomplete");
      });
      return {
        json: { workspace_id: workspaceId, memories: count, vectors },
        human: [`Exported ${memories(count)} of workspace ${workspaceId}.`],
        toStderr: true,
      };
    }
    const progress = terminalProgress("exporting");
    const count = await writeNewFile(flags.out, (out) =>
      exportWorkspace(store, workspaceId, out, { vectors, onProgress: progress.update }),
    ).finally(() => progress.end());
    return {
      json: { workspace_id: workspaceId, memories: count, vectors, out: flags.out },
      human: [`Exported ${memories(count)} of workspace ${workspaceId} to ${flags.out}.`],
    };
  } finally {
    await store.close();
  }
}

async function runImport(
  location: StoreLocation,
  env: NodeJS.ProcessEnv,
  log: ServiceLog,
  file: string,
  target: { workspaceId: number } | { newWorkspaceName: string },
): Promise<TransferOutput> {
  if (!existsSync(file)) throw new Error(`no file ${file}`);
  const [{ openStore }, { loadModels }, { importFile, resolveTarget }, { screenPii }] = await Promise.all([
    loadOptional(() => import("../service/store/open-store.js")),
    loadOptional(() => import("../service/models/index.js")),
    import("../service/export/import.js"),
    import("../service/pipeline/pii/index.js"),
  ]);
  const store = await loadOptional(() => openStore(location, { log }));
  const progress = terminalProgress("importing");
  try {
    // a missing workspace or a taken name is refused at once, not after the model's 6-30 s load
    await resolveTarget(store, target);
    const models = await loadOptional(() => loadModels(env));
    try {
      const report = await importFile({ store, embedder: models.embedder, screenPii }, file, target, { onProgress: progress.update });
      progress.end();
      const { workspace } = report;
      const human = [
        `Imported ${memories(report.imported)} into ${report.createdWorkspace ? "the new " : ""}workspace ${workspace.id} ("${workspace.name}")` +
          `; ${report.alreadyPresent} already there, ${report.refused.length} refused.`,
      ];
      if (report.createdWorkspace) {
        human.push(
          `Make its API key with \`brain-mcp admin key create ${workspace.id}\` (or \`key import ${workspace.id} -\` to keep an old key).`,
        );
      }
      return {
        json: {
          workspace_id: workspace.id,
          created_workspace: report.createdWorkspace,
          memories: report.memories,
          imported: report.imported,
          already_present: report.alreadyPresent,
          embedded: report.embedded,
          refused: report.refused,
        },
        human,
        warnings: report.refused.map((r) => `line ${r.line}: refused, it contains ${r.pii_types.join(", ")} (the memory was not imported)`),
        exitCode: report.refused.length > 0 ? 1 : 0,
      };
    } finally {
      await models.close?.();
    }
  } finally {
    progress.end();
    await store.close();
  }
}

async function runBackup(location: StoreLocation, out: string): Promise<TransferOutput> {
  if (location.databaseUrl !== undefined) {
    throw new Error(
      "backup copies a SQLite store; for PostgreSQL use pg_dump, which copies a live database consistently: " +
        'pg_dump --format=custom --file=brain.dump "$BRAIN_DATABASE_URL" (restore with pg_restore)',
    );
  }
  const { backupSqlite } = await loadOptional(() => import("../service/export/backup.js"));
  const result = await backupSqlite(location.dbPath!, out);
  return {
    json: { out, pages: result.pages, bytes: result.bytes },
    human: [`Backed up ${location.dbPath} to ${out} (${result.bytes.toLocaleString("en-US")} bytes).`],
  };
}

/** Runs one of TRANSFER_COMMANDS; the command line is checked before the store is opened. */
export async function runTransfer(
  positionals: string[],
  flags: TransferFlags,
  location: StoreLocation,
  env: NodeJS.ProcessEnv,
  log: ServiceLog,
): Promise<TransferOutput> {
  const [command, ...rest] = positionals;
  if (command === "export") {
    if (rest.length > 0) throw new UsageError("export takes no arguments besides its flags");
    if (flags.workspace === undefined) throw new UsageError("export needs --workspace WORKSPACE_ID");
    if (flags.out !== undefined) refuseExisting(flags.out);
    return runExport(location, log, parseId(flags.workspace, "--workspace"), flags);
  }
  if (command === "import") {
    if (rest.length !== 1) throw new UsageError("import needs one FILE (an export file)");
    if ((flags.workspace === undefined) === (flags.new === undefined)) {
      throw new UsageError("import needs either --workspace WORKSPACE_ID or --new NAME");
    }
    const name = flags.new?.trim();
    if (name === "") throw new UsageError("--new needs a workspace name");
    const target = name !== undefined ? { newWorkspaceName: name } : { workspaceId: parseId(flags.workspace, "--workspace") };
    return runImport(location, env, log, rest[0]!, target);
  }
  if (rest.length > 0) throw new UsageError("backup takes no arguments besides --out FILE");
  if (flags.out === undefined) throw new UsageError("backup needs --out FILE");
  return runBackup(location, flags.out);
}
