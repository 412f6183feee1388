// Administration: workspaces and their keys, for `admin`, the dashboard and a store's first start. Not reachable
// through the public API.
import type { WorkspaceStatus } from "../contract/wire.js";
import { importedKeyProblem, keyRecordOf, newApiKey, type RandomBytes } from "./ids.js";
import type { MemoryStore, NewKey, NewWorkspace } from "./store/types.js";
import type { AdminService, Workspace } from "./types.js";

export const DEFAULT_PLAN = "free";
export const DEFAULT_BILLING_CYCLE = "monthly";

export interface AdministrationDeps {
  store: MemoryStore;
  nowMs: () => number;
  random?: RandomBytes;
}

export type Administration = Omit<AdminService, "reembed">;

/** SQLite's and PostgreSQL's unique-constraint failures. */
const isUniqueViolation = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
};

export function createAdministration({ store, nowMs, random }: AdministrationDeps): Administration {
  const newWorkspace = (input: { name: string; plan?: string; billing_cycle?: string }, at: number): NewWorkspace => ({
    name: input.name,
    plan: input.plan ?? DEFAULT_PLAN,
    billing_cycle: input.billing_cycle ?? DEFAULT_BILLING_CYCLE,
    status: "active" as WorkspaceStatus,
    created_at: at,
  });
  /** Only the key's SHA-256 is stored. */
  const newKey = (apiKey: string, at: number): Omit<NewKey, "workspace_id"> => keyRecordOf(apiKey, at);

  async function requireWorkspace(id: number): Promise<Workspace> {
    const ws = await store.getWorkspace(id);
    if (!ws) throw new Error(`workspace ${id} does not exist`);
    return ws;
  }

  /** A key for the workspace; one key opens one workspace, so a key some workspace already has is refused by name. */
  async function registerKey(workspaceId: number, apiKey: string): Promise<{ keyId: number; prefix: string }> {
    await requireWorkspace(workspaceId);
    const key = newKey(apiKey, nowMs());
    const holder = await store.findKeyByHash(key.key_hash);
    if (holder) {
      throw new Error(
        holder.workspace.id === workspaceId
          ? `this key is already key ${holder.keyId} of workspace ${workspaceId}; nothing was imported`
          : `this key already opens workspace ${holder.workspace.id} (key ${holder.keyId}), and a key opens one workspace only: ` +
              `import a different key, or revoke it there first and then import a new one; nothing was imported`,
      );
    }
    try {
      return { keyId: await store.insertKey({ ...key, workspace_id: workspaceId }), prefix: key.prefix };
    } catch (err) {
      // The hash is unique across live and revoked keys: a revoked key is never live again.
      if (!isUniqueViolation(err)) throw err;
      throw new Error("this key was revoked (or is being imported by someone else right now); import a new key; nothing was imported");
    }
  }

  return {
    async createWorkspace(input) {
      return store.insertWorkspace(newWorkspace(input, nowMs()));
    },

    async createFirstWorkspace(name) {
      if ((await store.countWorkspaces()) > 0) return null; // every start but the first, without taking a lock
      const at = nowMs();
      const apiKey = newApiKey(random);
      const key = newKey(apiKey, at);
      const made = await store.insertFirstWorkspace(newWorkspace({ name }, at), key);
      return made && { workspace: made.workspace, keyId: made.keyId, apiKey, prefix: key.prefix };
    },

    async setWorkspaceStatus(workspaceId, status) {
      const ws = await store.setWorkspaceStatus(workspaceId, status);
      if (!ws) throw new Error(`workspace ${workspaceId} does not exist`);
      return ws;
    },

    countWorkspaces() {
      return store.countWorkspaces();
    },

    listWorkspaces() {
      return store.listWorkspaces();
    },

    async createKey(workspaceId) {
      const apiKey = newApiKey(random);
      const { keyId, prefix } = await registerKey(workspaceId, apiKey);
      return { keyId, apiKey, prefix };
    },

    async importKey(workspaceId, apiKey) {
      const problem = importedKeyProblem(apiKey);
      if (problem) throw new Error(`${problem}; nothing was imported`);
      return registerKey(workspaceId, apiKey);
    },

    revokeKey(keyId) {
      return store.revokeKey(keyId, nowMs());
    },

    async keyState(keyId) {
      const key = await store.getKey(keyId);
      return key === null ? null : key.revokedAt === null ? "live" : "revoked";
    },
  };
}
