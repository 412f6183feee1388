// A second process on the same SQLite file: waits for "go" on stdin, stores the same text N times, prints results.
import { createService } from "../../src/service/service.js";
import { serviceSettings } from "../../src/service/settings.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import { screenPii } from "../../src/service/pipeline/pii/index.js";
import { testEmbedder, testJudge } from "./models.js";

const [dbPath, apiKey, text, times] = process.argv.slice(2);
const store = openSqliteStore(dbPath!);
const service = createService({
  store,
  embedder: testEmbedder(),
  judge: testJudge(),
  screenPii,
  settings: serviceSettings({}),
  log: { debug() {}, info() {}, warn() {}, error() {} },
  now: () => new Date(),
  version: "test",
});
const auth = await service.authenticate(apiKey!);
process.stdout.write("ready\n");
process.stdin.once("data", async () => {
  const results = [];
  for (let i = 0; i < Number(times); i++) results.push(service.store(auth!, { text: text!, meta: { pid: process.pid } }, {}));
  const settled = await Promise.all(results);
  process.stdout.write(JSON.stringify(settled.map((r) => [r.memory_id, r.dedup.action])) + "\n");
  await service.close();
  process.exit(0);
});
