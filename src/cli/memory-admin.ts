// `brain-mcp admin memory delete | forget | compact`: the workspace owner forgets memories, by id or by what they say,
// and the operator rewrites the store so forgotten texts leave its files. Like the rest of `admin`, directly on the
// service's store; the public API keeps its four operations.
import { createInterface } from "node:readline/promises";
import { QUERY_MAX_CHARS } from "../contract/limits.js";
import { FORGET_MIN_SCORE_DEFAULT } from "../service/dashboard/choices.js";
import { loadOptional } from "../service/process/optional-deps.js";
import type { MemoryStore } from "../service/store/types.js";
import type { ServiceLog } from "../service/types.js";
import { parseId, UsageError } from "./admin-usage.js";
import type { StoreLocation } from "./serve.js";
import type { TransferOutput } from "./transfer.js";

export type MemoryFlags = { workspace?: string; query?: string; "min-score"?: string; yes?: boolean };

const memories = (n: number) => `${n} memor${n === 1 ? "y" : "ies"}`;
const oneLine = (text: string, max = 100) => {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

async function withStore<T>(location: StoreLocation, log: ServiceLog, fn: (store: MemoryStore) => Promise<T>): Promise<T> {
  const { openStore } = await loadOptional(() => import("../service/store/open-store.js"));
  const store = await loadOptional(() => openStore(location, { log }));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Asks on the terminal; true only for an explicit yes. */
async function confirmed(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/** `memory delete ID…`: each id is found in its workspace (or only in --workspace), then forgotten there. */
async function runDelete(location: StoreLocation, log: ServiceLog, ids: number[], workspace: number | undefined): Promise<TransferOutput> {
  return withStore(location, log, async (store) => {
    const workspaces = workspace !== undefined ? [workspace] : (await store.listWorkspaces()).map((w) => w.workspace.id);
    const deleted: { workspace_id: number; memory_id: number }[] = [];
    for (const ws of workspaces) {
      const here = (await store.getMemories(ws, ids)).map((m) => m.id);
      if (here.length === 0) continue;
      for (const id of await store.deleteMemories(ws, here)) deleted.push({ workspace_id: ws, memory_id: id });
    }
    const gone = new Set(deleted.map((d) => d.memory_id));
    const notFound = [...new Set(ids)].filter((id) => !gone.has(id));
    return {
      json: { deleted, not_found: notFound },
      human: [
        `Forgot ${memories(deleted.length)}${deleted.length ? `: ${deleted.map((d) => `${d.memory_id} (workspace ${d.workspace_id})`).join(", ")}` : ""}.`,
        ...(notFound.length
          ? [`No memory with id ${notFound.join(", ")}${workspace !== undefined ? ` in workspace ${workspace}` : ""}.`]
          : []),
      ],
      exitCode: notFound.length ? 1 : 0,
    };
  });
}

/** `memory forget --workspace W --query "…"`: the dashboard's search (not a recall), shown, confirmed, forgotten. */
async function runForget(
  location: StoreLocation,
  env: NodeJS.ProcessEnv,
  log: ServiceLog,
  workspace: number,
  query: string,
  minScore: number,
  yes: boolean,
  json: boolean,
): Promise<TransferOutput> {
  const [{ loadModels }, { createDashboard }] = await Promise.all([
    loadOptional(() => import("../service/models/index.js")),
    import("../service/dashboard/data.js"),
  ]);
  return withStore(location, log, async (store) => {
    if (!(await store.getWorkspace(workspace))) throw new Error(`workspace ${workspace} does not exist`);
    const models = await loadOptional(() => loadModels(env));
    try {
      const dashboard = createDashboard({ store, embedder: models.embedder });
      const page = await dashboard.memories(workspace, { query, filter: {}, offset: 0 });
      const found = page.memories.flatMap((m) => ("score" in m && m.score >= minScore ? [{ id: m.id, score: m.score, text: m.text }] : []));
      const preview = found.map((m) => `  ${m.id}  score ${m.score.toFixed(3)}  ${oneLine(m.text)}`);
      if (found.length === 0) {
        return {
          json: { workspace_id: workspace, forgotten: [] },
          human: [`No memory of workspace ${workspace} matches at score ${minScore} or more; nothing forgotten.`],
        };
      }
      const question = `Forget ${found.length === 1 ? "this memory" : `these ${memories(found.length)}`} of workspace ${workspace}?`;
      const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
      if (!yes) {
        if (!interactive) {
          return {
            json: { workspace_id: workspace, forgotten: [], would_forget: found.map((m) => ({ id: m.id, score: m.score })) },
            human: [`Would forget ${memories(found.length)}:`, ...preview],
            warnings: ["refusing to forget without a confirmation: run it on a terminal to be asked, or add --yes"],
            exitCode: 2,
          };
        }
        process.stderr.write(`${preview.join("\n")}\n`);
        if (!(await confirmed(question))) {
          return { json: { workspace_id: workspace, forgotten: [] }, human: ["Nothing forgotten."], exitCode: 1 };
        }
      }
      const forgotten = await dashboard.forget(
        workspace,
        found.map((m) => m.id),
      );
      return {
        json: { workspace_id: workspace, forgotten },
        human: [`Forgot ${memories(forgotten.length)} of workspace ${workspace}${json || yes ? `: ${forgotten.join(", ")}` : ""}.`],
      };
    } finally {
      await models.close?.();
    }
  });
}

/** `memory compact`: forgotten texts out of the store's files (README "What forgetting erases"). */
async function runCompact(location: StoreLocation, log: ServiceLog): Promise<TransferOutput> {
  return withStore(location, log, async (store) => {
    const { ms, checkpoint, statistics } = await store.compact();
    const where = store.dialect === "postgres" ? "the memories table (VACUUM FULL)" : "the store (VACUUM)";
    const warnings = [
      ...(checkpoint
        ? []
        : [
            store.dialect === "postgres"
              ? "CHECKPOINT needs superuser or the pg_checkpoint role: the emptied file goes at the next automatic checkpoint"
              : "another process kept reading for 15 s: the WAL is truncated at the next forget or compact",
          ]),
      ...(statistics
        ? []
        : [
            "not a superuser: statistics sampled before this version may still quote texts; a superuser can run `brain-mcp admin memory compact` once",
          ]),
    ];
    return {
      json: { compacted: true, ms, checkpoint, statistics },
      human: [`Rewrote ${where} in ${ms} ms: forgotten texts are out of its files (README: "What forgetting erases").`],
      warnings,
    };
  });
}

export async function runMemoryAdmin(
  positionals: string[],
  flags: MemoryFlags & { json?: boolean },
  location: StoreLocation,
  env: NodeJS.ProcessEnv,
  log: ServiceLog,
): Promise<TransferOutput> {
  const action = positionals[1];
  const workspace = flags.workspace === undefined ? undefined : parseId(flags.workspace, "--workspace");
  if (action === "delete") {
    if (positionals.length < 3) throw new UsageError("expected: memory delete MEMORY_ID… [--workspace WORKSPACE_ID]");
    const ids = positionals.slice(2).map((raw) => parseId(raw, "MEMORY_ID"));
    return runDelete(location, log, ids, workspace);
  }
  if (action === "forget") {
    if (positionals.length !== 2)
      throw new UsageError('expected: memory forget --workspace WORKSPACE_ID --query "…" [--min-score S] [--yes]');
    if (workspace === undefined) throw new UsageError("memory forget needs --workspace WORKSPACE_ID");
    const query = flags.query?.trim();
    if (!query) throw new UsageError('memory forget needs --query "what the memories say"');
    if (query.length > QUERY_MAX_CHARS) throw new UsageError(`--query is over ${QUERY_MAX_CHARS} characters`);
    const minScore = flags["min-score"] === undefined ? FORGET_MIN_SCORE_DEFAULT : Number(flags["min-score"]);
    if (!Number.isFinite(minScore) || minScore < 0 || minScore > 1) throw new UsageError("--min-score must be a number from 0 to 1");
    return runForget(location, env, log, workspace, query, minScore, flags.yes === true, flags.json === true);
  }
  if (action === "compact") {
    if (positionals.length !== 2) throw new UsageError("expected: memory compact");
    return runCompact(location, log);
  }
  throw new UsageError(
    `expected: memory delete MEMORY_ID…, memory forget --workspace WORKSPACE_ID --query "…" or memory compact, not: ${positionals.join(" ")}`,
  );
}
