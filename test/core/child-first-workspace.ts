// A process on a SQLite file that, on "go" from stdin, tries to make the store's first workspace; prints true/false.
import { openSqliteStore } from "../../src/service/store/sqlite.js";

const [dbPath, tag] = process.argv.slice(2);
const store = openSqliteStore(dbPath!);
process.stdout.write("ready\n");
process.stdin.once("data", async () => {
  const made = await store.insertFirstWorkspace(
    { id: `ws_${tag}`, name: "default", plan: "free", billing_cycle: "monthly", status: "active", created_at: Date.now() },
    { id: `key_${tag}`, workspace_id: `ws_${tag}`, key_hash: `hash_${tag}`, prefix: "svc_ws_abcd", created_at: Date.now() },
  );
  process.stdout.write(`${made}\n`);
  await store.close();
  process.exit(0);
});
