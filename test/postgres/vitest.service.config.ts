// The service suite (test/service, and the dashboard's test/ui/server.test.ts) against a real PostgreSQL instead of SQLite:
//   npx vitest run --config test/postgres/vitest.service.config.ts
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "../../vitest.config.js";

export default defineConfig({
  ...base,
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    ...base.test,
    // Replaces the base include (mergeConfig would append to it).
    // The dashboard's HTTP test reads the same store through `brain-mcp ui`.
    include: ["test/service/**/*.test.ts", "test/ui/server.test.ts"],
    globalSetup: ["test/postgres/global-setup.ts"],
  },
});
