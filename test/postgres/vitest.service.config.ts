// The service suite (test/service) against a real PostgreSQL instead of SQLite:
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
    include: ["test/service/**/*.test.ts"],
    globalSetup: ["test/postgres/global-setup.ts"],
  },
});
