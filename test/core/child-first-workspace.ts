// A process on a SQLite file that, on "go" from stdin, tries to make the store's first workspace; prints true/false.
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";

const [dbPath, tag] = process.argv.slice(2);
const store = openSqliteStore(dbPath!);
process.stdout.write("ready\n");
process.stdin.once("data", async () => {
  const made = await store.insertFirstWorkspace(
    { name: `default_${tag}`, plan: "free", billing_cycle: "monthly", status: "active", created_at: Date.now() },
    { key_hash: `hash_${tag}`, prefix: "svc_ws_abcd", created_at: Date.now() },
  );
  process.stdout.write(`${made !== null}\n`);
  await store.close();
  process.exit(0);
});
