// `brain-mcp admin backup`: a consistent copy of a live SQLite store while the real service keeps writing; on
// PostgreSQL, a pointer to pg_dump.
import { describe, expect, it, vi } from "vitest";
import { baseEnv, call, runCli, startService, TEST_DATABASE_URL } from "../support/service.js";
import { jsonOf, LEXICAL, sqliteRows, tempFile } from "../support/export-files.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe.skipIf(TEST_DATABASE_URL)("backup", () => {
  it("copies a live SQLite store while the service writes: the copy passes integrity_check and holds every acknowledged memory", async () => {
    const live = await startService({ env: LEXICAL });
    try {
      const acknowledged = new Map<number, string>();
      let writing = true;
      let n = 0;
      const writer = async () => {
        while (writing) {
          const text = `Release note ${++n}: build ${n * 7919} shipped to region ${n % 13} on lane ${n % 5}.`;
          const stored = await call(live.baseURL, "POST", "/v1/memory/store", { key: live.apiKey, json: { text } });
          if (stored.status === 200) acknowledged.set(stored.json.memory_id, text);
        }
      };
      const writers = [writer(), writer(), writer()];
      while (acknowledged.size < 30) await new Promise((r) => setTimeout(r, 20));

      const before = new Map(acknowledged);
      const out = tempFile("backup.db");
      const backup = await live.admin(["backup", "--out", out, "--json"]);
      const during = acknowledged.size - before.size;
      writing = false;
      await Promise.all(writers);
      expect(jsonOf(backup)).toMatchObject({ out, bytes: expect.any(Number) });
      expect(during).toBeGreaterThan(0); // the service kept writing while the copy was taken

      expect(await sqliteRows(out, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
      const rows = await sqliteRows<{ id: number; text: string }>(out, "SELECT id, text FROM memories");
      const inCopy = new Map(rows.map((r) => [r.id, r.text]));
      for (const [id, text] of before) expect(inCopy.get(id)).toBe(text);

      const again = await live.admin(["backup", "--out", out]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("exists already");
    } finally {
      await live.stop();
    }
  });

  it("on PostgreSQL, backup points at pg_dump", async () => {
    const result = await runCli(
      ["admin", "backup", "--out", tempFile("pg.dump"), "--database-url", "postgres://nobody:pw@127.0.0.1:1/none"],
      {
        env: baseEnv(),
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("pg_dump");
    expect(result.stderr).not.toContain("pw@");
  });
});
