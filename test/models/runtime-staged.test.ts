// The platform package that scripts/onnxruntime/build-platform-packages.js stages (CI's install test builds it, after
// npm test; a developer's checkout may hold one) loads on its own, with no install step. In a file of its own: each test
// file runs in a fresh process, and a process that already loaded onnxruntime-node (runtime.test.ts's other tests do)
// refuses a second "cpu" backend from another copy ("cannot register backend").
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { hostTarget, loadModelRuntime } from "../../src/service/models/embed/runtime.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MODEL = join(ROOT, "src", "service", "models", "embed", "data", "minilm", "model.onnx");
const STAGED = join(ROOT, ".tmp", "onnxruntime", "packages", hostTarget());

const projects: string[] = [];
afterAll(() => projects.forEach((p) => rmSync(p, { recursive: true, force: true })));

/** An empty project; returns a file to resolve from. */
function emptyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "brain-runtime-"));
  projects.push(dir);
  mkdirSync(join(dir, "node_modules", "@brain-mcp"), { recursive: true });
  writeFileSync(join(dir, "package.json"), "{}");
  return join(dir, "package.json");
}

it.skipIf(!existsSync(join(STAGED, "package.json")))(
  "the package scripts/onnxruntime builds for this machine loads without any install step and runs the model",
  async () => {
    const from = emptyProject();
    const at = join(dirname(from), "node_modules", "@brain-mcp", `onnxruntime-${hostTarget()}`);
    cpSync(STAGED, at, { recursive: true });
    symlinkSync(join(ROOT, "node_modules", "onnxruntime-common"), join(dirname(from), "node_modules", "onnxruntime-common"));
    const runtime = await loadModelRuntime({ BRAIN_MODEL_RUNTIME: "native" }, { from });
    expect(runtime.source).toBe(`@brain-mcp/onnxruntime-${hostTarget()} 1.30.0`);
    const session = await runtime.open(MODEL);
    const ids = runtime.int64(new BigInt64Array([101n, 7592n, 102n]), [1, 3]);
    const mask = runtime.int64(new BigInt64Array([1n, 1n, 1n]), [1, 3]);
    const types = runtime.int64(new BigInt64Array(3), [1, 3]);
    const out = await session.run({ input_ids: ids, attention_mask: mask, token_type_ids: types });
    expect(out[session.outputNames[0]!]!.dims).toEqual([1, 3, 384]);
  },
  60_000,
);
