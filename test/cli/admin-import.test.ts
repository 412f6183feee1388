// `brain-mcp admin import` refuses a missing workspace or a taken name before it loads the model (6-30 s): proved by
// a model setting that cannot load, which would be the error if the model came first (issue 29).
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { adminOn, jsonOf, tempFile } from "../support/export-files.js";

const NO_MODEL = { BRAIN_EMBEDDER: "no-such-model" };

describe("admin import checks where it imports to before loading the model", () => {
  const db = tempFile("import-order.db");
  const file = tempFile("import-order.jsonl");
  writeFileSync(file, "{}\n");

  it("a missing workspace and a taken name are refused, naming them, and nothing is created", async () => {
    const made = jsonOf(await adminOn(db, ["workspace", "create", "--name", "taken", "--json"]));
    const missing = await adminOn(db, ["import", file, "--workspace", 987654], NO_MODEL);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("workspace 987654 does not exist");
    expect(missing.stderr).not.toContain("BRAIN_EMBEDDER");
    const taken = await adminOn(db, ["import", file, "--new", "taken"], NO_MODEL);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`a workspace named "taken" exists already (id ${made.workspace_id})`);
    expect(taken.stderr).not.toContain("BRAIN_EMBEDDER");
    expect(jsonOf(await adminOn(db, ["workspace", "list", "--json"])).workspaces).toHaveLength(1);
  });
});
