// `brain-mcp admin`: workspace and key administration directly on the service's store.
import { parseArgs } from "node:util";
import type { WorkspaceStatus } from "../contract/wire.js";
import { createJsonLog, parseLogLevel } from "../service/process/json-log.js";
import type { AdminService, MemoryService, Workspace } from "../service/types.js";
import { openStore, reportFailure, resolveStoreLocation } from "./serve.js";
import { checkWebhookCommand, WEBHOOK_USAGE } from "./webhook.js";
import type { TransferOutput } from "./transfer.js";
import { parseId, UsageError } from "./admin-usage.js";

export { parseId, UsageError } from "./admin-usage.js";

const USAGE = `usage: brain-mcp admin <command> [--db PATH | --database-url URL] [--json]

  workspace list                                                        (ids, names, status, memories, live keys)
  workspace create --name NAME [--plan PLAN] [--billing-cycle CYCLE]   (also makes its first API key)
  workspace set-status WORKSPACE_ID active|suspended|limit_reached|deleted
  key create WORKSPACE_ID
  key revoke KEY_ID
  key import WORKSPACE_ID KEY      (KEY as "-" reads it from stdin, keeping it out of process lists)
  reembed [--workspace WORKSPACE_ID]
  export --workspace WORKSPACE_ID [--out FILE] [--vectors]   (JSON Lines; stdout without --out; never overwrites)
  import FILE --workspace WORKSPACE_ID | --new NAME           (adds only what is not there yet)
  backup --out FILE                                          (a consistent copy of a live SQLite store)
${WEBHOOK_USAGE}
  memory delete MEMORY_ID… [--workspace WORKSPACE_ID]        (forgets them: text, vector, idempotent answers)
  memory forget --workspace WORKSPACE_ID --query "…" [--min-score S] [--yes]
                                   (shows the memories found by meaning, scoring S or more (default 0.5), and asks;
                                    without a terminal it forgets only with --yes)
  memory compact                   (rewrites the memories' table so forgotten texts leave the database files; on
                                    PostgreSQL VACUUM FULL, which holds other requests while it runs)

  --db PATH / BRAIN_DB, --database-url URL / BRAIN_DATABASE_URL: the store (as for serve)
  --json   print one JSON object instead of sentences`;

/** Commands in ./transfer.ts, loaded only when one of them runs. */
const TRANSFER_COMMANDS = ["export", "import", "backup"];

const STATUSES: readonly WorkspaceStatus[] = ["active", "suspended", "limit_reached", "deleted"];

/** How long one admin statement on PostgreSQL may run (ms) unless BRAIN_PG_STATEMENT_TIMEOUT_MS says otherwise. */
const ADMIN_STATEMENT_TIMEOUT_MS = 300_000;

/** The commands whose third word is an id, and its name in the usage. */
const ID_ARGUMENT: Record<string, string> = {
  "workspace set-status": "WORKSPACE_ID",
  "key create": "WORKSPACE_ID",
  "key revoke": "KEY_ID",
  "key import": "WORKSPACE_ID",
};

type Output = { json: Record<string, unknown>; human: string[] };

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

function describeWorkspace(workspace: Workspace): Record<string, unknown> {
  return {
    workspace_id: workspace.id,
    name: workspace.name,
    status: workspace.status,
    plan: workspace.plan,
    billing_cycle: workspace.billing_cycle,
  };
}

function expectArgs(positionals: string[], count: number, shape: string): void {
  if (positionals.length !== count) throw new UsageError(`expected: ${shape}`);
}

async function runCommand(
  service: MemoryService & AdminService,
  positionals: string[],
  flags: { name?: string; plan?: string; "billing-cycle"?: string; workspace?: string },
): Promise<Output> {
  const [group, action] = positionals;
  const command = group === "reembed" ? "reembed" : `${group} ${action}`;
  switch (command) {
    case "workspace list": {
      expectArgs(positionals, 2, "workspace list");
      const all = await service.listWorkspaces();
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
      return {
        json: { workspaces: all.map((w) => ({ ...describeWorkspace(w.workspace), memories: w.memories, live_keys: w.liveKeys })) },
        human: all.length
          ? all.map(
              ({ workspace: w, memories, liveKeys }) =>
                `${w.id}  "${w.name}"  ${w.status}, plan ${w.plan}, ${count(memories, "memory", "memories")}, ${count(liveKeys, "live key", "live keys")}`,
            )
          : ["No workspaces yet: `brain-mcp admin workspace create --name NAME` makes one (as does the first `serve`)."],
      };
    }
    case "workspace create": {
      expectArgs(positionals, 2, "workspace create --name NAME");
      const name = flags.name?.trim();
      if (!name) throw new UsageError("workspace create needs --name NAME");
      const workspace = await service.createWorkspace({ name, plan: flags.plan, billing_cycle: flags["billing-cycle"] });
      const key = await service.createKey(workspace.id);
      return {
        json: { ...describeWorkspace(workspace), key_id: key.keyId, api_key: key.apiKey, api_key_prefix: key.prefix },
        human: [
          `Created workspace ${workspace.id} ("${workspace.name}", plan ${workspace.plan}, ${workspace.billing_cycle}).`,
          `API key ${key.keyId} (shown once; store it now):`,
          key.apiKey,
        ],
      };
    }
    case "workspace set-status": {
      expectArgs(positionals, 4, "workspace set-status WORKSPACE_ID STATUS");
      const status = positionals[3] as WorkspaceStatus;
      if (!STATUSES.includes(status)) throw new UsageError(`status must be one of ${STATUSES.join(", ")}`);
      const workspace = await service.setWorkspaceStatus(parseId(positionals[2], "WORKSPACE_ID"), status);
      return {
        json: describeWorkspace(workspace),
        human: [`Workspace ${workspace.id} is now ${workspace.status}.`],
      };
    }
    case "key create": {
      expectArgs(positionals, 3, "key create WORKSPACE_ID");
      const workspaceId = parseId(positionals[2], "WORKSPACE_ID");
      const key = await service.createKey(workspaceId);
      return {
        json: { workspace_id: workspaceId, key_id: key.keyId, api_key: key.apiKey, api_key_prefix: key.prefix },
        human: [`API key ${key.keyId} for workspace ${workspaceId} (shown once; store it now):`, key.apiKey],
      };
    }
    case "key revoke": {
      expectArgs(positionals, 3, "key revoke KEY_ID");
      const keyId = parseId(positionals[2], "KEY_ID");
      if (!(await service.revokeKey(keyId))) {
        const state = await service.keyState(keyId);
        throw new Error(state === "revoked" ? `API key ${keyId} is already revoked; nothing changed` : `no API key with id ${keyId}`);
      }
      return { json: { key_id: keyId, revoked: true }, human: [`API key ${keyId} is revoked.`] };
    }
    case "key import": {
      expectArgs(positionals, 4, "key import WORKSPACE_ID KEY (or - to read the key from stdin)");
      const workspaceId = parseId(positionals[2], "WORKSPACE_ID");
      const apiKey = positionals[3] === "-" ? await readStdin() : positionals[3]!.trim();
      if (apiKey === "" || /\s/.test(apiKey)) throw new UsageError("the key to import must be one word with no spaces");
      // Its strength (length and entropy) is checked by the service, which names what is missing.
      const key = await service.importKey(workspaceId, apiKey);
      return {
        json: { workspace_id: workspaceId, key_id: key.keyId, api_key_prefix: key.prefix },
        human: [`Imported API key ${key.keyId} (prefix ${key.prefix}) for workspace ${workspaceId}.`],
      };
    }
    case "reembed": {
      expectArgs(positionals, 1, "reembed [--workspace WORKSPACE_ID]");
      const workspaceId = flags.workspace === undefined ? undefined : parseId(flags.workspace, "--workspace");
      const onProgress = (done: number) => process.stderr.write(`re-embedded ${done} memor${done === 1 ? "y" : "ies"} so far\n`);
      const count = await service.reembed({ ...(workspaceId === undefined ? {} : { workspaceId }), onProgress });
      return {
        json: { ...(workspaceId === undefined ? {} : { workspace_id: workspaceId }), reembedded: count },
        human: [`Re-embedded ${count} memor${count === 1 ? "y" : "ies"}.`],
      };
    }
    default:
      throw new UsageError(positionals.length === 0 ? "no command given" : `unknown command: ${positionals.join(" ")}`);
  }
}

export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // biome-ignore lint/suspicious/noImplicitAnyLet: the type is parseArgs's, inferred from the options it is given below
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        db: { type: "string" },
        "database-url": { type: "string" },
        json: { type: "boolean", default: false },
        name: { type: "string" },
        plan: { type: "string" },
        "billing-cycle": { type: "string" },
        workspace: { type: "string" },
        out: { type: "string" },
        vectors: { type: "boolean" },
        new: { type: "string" },
        url: { type: "string" },
        events: { type: "string" },
        limit: { type: "string" },
        query: { type: "string" },
        "min-score": { type: "string" },
        yes: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`brain-mcp admin: ${(err as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return 2;
  }
  const { values, positionals } = parsed;
  /** Writes a command's summary (and warnings) and sets the exit code. */
  const finish = (out: TransferOutput): number => {
    const summary = values.json ? `${JSON.stringify(out.json)}\n` : `${out.human.join("\n")}\n`;
    for (const warning of out.warnings ?? []) process.stderr.write(`brain-mcp admin: ${warning}\n`);
    (out.toStderr ? process.stderr : process.stdout).write(summary);
    process.exitCode = out.exitCode ?? 0;
    return out.exitCode ?? 0;
  };
  if (values.help || positionals.length === 0) {
    (values.help ? process.stdout : process.stderr).write(`${USAGE}\n`);
    const code = values.help ? 0 : 2;
    process.exitCode = code;
    return code;
  }

  // An export of a large workspace or a re-embed is long by nature: admin's statements get minutes, serve's seconds.
  process.env.BRAIN_PG_STATEMENT_TIMEOUT_MS ??= env.BRAIN_PG_STATEMENT_TIMEOUT_MS ?? String(ADMIN_STATEMENT_TIMEOUT_MS);
  // Admin talks to people on stdout; the service's own log stays quiet unless asked for.
  const log = createJsonLog(process.stderr, parseLogLevel(env.BRAIN_LOG, "warn"));
  let service: (MemoryService & AdminService) | undefined;
  try {
    const location = resolveStoreLocation(values, env);
    if (positionals[0] === "memory")
      return finish(await (await import("./memory-admin.js")).runMemoryAdmin(positionals, values, location, env, log));
    if (TRANSFER_COMMANDS.includes(positionals[0]!)) {
      const { runTransfer } = await import("./transfer.js");
      return finish(await runTransfer(positionals, values, location, env, log));
    }
    if (positionals[0] === "webhook") {
      checkWebhookCommand(positionals, values);
      const { runWebhook } = await import("./webhook.js");
      const out = await runWebhook(positionals, values, location, env, log);
      process.stdout.write(values.json ? `${JSON.stringify(out.json)}\n` : `${out.human.join("\n")}\n`);
      return 0;
    }
    // Check the command's shape before opening the store (and loading models).
    const known = ["workspace list", "workspace create", "workspace set-status", "key create", "key revoke", "key import"];
    if (positionals[0] !== "reembed" && !known.includes(`${positionals[0]} ${positionals[1]}`)) {
      throw new UsageError(`unknown command: ${positionals.join(" ")}`);
    }
    // A malformed id is a usage error, found before the store is opened (or created).
    const idNamed = ID_ARGUMENT[`${positionals[0]} ${positionals[1]}`];
    if (idNamed && positionals[2] !== undefined) parseId(positionals[2], idNamed);
    if (values.workspace !== undefined) parseId(values.workspace, "--workspace");
    service = await openStore(location, env, log, { withoutModels: positionals[0] !== "reembed" });
    const out = await runCommand(service, positionals, values);
    process.stdout.write(values.json ? `${JSON.stringify(out.json)}\n` : `${out.human.join("\n")}\n`);
    await service.close();
    return 0;
  } catch (err) {
    await service?.close().catch(() => undefined);
    if (err instanceof UsageError) {
      process.stderr.write(`brain-mcp admin: ${err.message}\n${USAGE}\n`);
      process.exitCode = 2;
      return 2;
    }
    const code = reportFailure("admin", err);
    process.exitCode = code;
    return code;
  }
}
