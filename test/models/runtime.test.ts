// The model runtime installs from npm alone: the native CPU runtime from the service package's optional package for
// this platform (@brain-mcp/onnxruntime-<target>), else an onnxruntime-node the user installed, else onnxruntime-web's
// WebAssembly build; BRAIN_MODEL_RUNTIME picks one or says what is missing; a native package that does not load falls
// back (auto) or is named with its error (native).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { describeModelRuntime, hostTarget, loadModelRuntime } from "../../src/service/models/embed/runtime.js";

/** A native runtime in this checkout: the platform's package (a developer may install it to measure) or onnxruntime-node. */
const nativeInstalled = [`@brain-mcp/onnxruntime-${hostTarget()}/package.json`, "onnxruntime-node"].some((name) => {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
});

const projects: string[] = [];
afterAll(() => projects.forEach((p) => rmSync(p, { recursive: true, force: true })));

/** An empty project with the given packages in node_modules; returns a file to resolve from. */
function project(packages: Record<string, { version: string; main: string }>): string {
  const dir = mkdtempSync(join(tmpdir(), "brain-runtime-"));
  projects.push(dir);
  for (const [name, { version, main }] of Object.entries(packages)) {
    const at = join(dir, "node_modules", name);
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, "package.json"), JSON.stringify({ name, version, main: "index.js" }));
    writeFileSync(join(at, "index.js"), main);
  }
  writeFileSync(join(dir, "package.json"), "{}");
  return join(dir, "package.json");
}
const BROKEN = 'throw new Error("libonnxruntime.so.1: cannot open shared object file\\nsecond line");';
const WORKING = "exports.Tensor = class { constructor(t, d, dims) { this.dims = dims; } }; exports.InferenceSession = {};";

it("BRAIN_MODEL_RUNTIME=wasm runs the model on onnxruntime-web's WebAssembly build", async () => {
  const runtime = await loadModelRuntime({ BRAIN_MODEL_RUNTIME: "wasm" });
  expect(runtime.name).toBe("wasm");
  expect(runtime.source).toMatch(/^onnxruntime-web \d+\.\d+\.\d+$/);
  expect(runtime.int64(new BigInt64Array([1n, 2n]), [1, 2]).dims).toEqual([1, 2]);
  expect(describeModelRuntime({ BRAIN_MODEL_RUNTIME: "wasm" })).toMatchObject({ runtime: "wasm", reason: "BRAIN_MODEL_RUNTIME=wasm" });
});

it("without a native package, the default is WebAssembly, and the start line says which package is missing", async () => {
  const from = project({});
  expect((await loadModelRuntime({}, { from, target: "linux-x64-gnu" })).name).toBe("wasm");
  expect(describeModelRuntime({}, { from, target: "linux-x64-gnu" })).toEqual({
    runtime: "wasm",
    package: expect.stringMatching(/^onnxruntime-web \d/),
    reason: expect.stringContaining("@brain-mcp/onnxruntime-linux-x64-gnu is not installed"),
  });
  expect(describeModelRuntime({}, { from, target: "linux-x64-musl" }).reason).toMatch(/^no native runtime package for linux-x64-musl/);
  expect(describeModelRuntime({}, { from, target: "darwin-x64" }).reason).toMatch(/^no native runtime package for darwin-x64/);
});

it("by default in this repository the runtime is native only when a native package is installed, else WebAssembly", async () => {
  expect((await loadModelRuntime({})).name).toBe(nativeInstalled ? "native" : "wasm");
});

it("the platform's package is the native runtime, before a user-installed onnxruntime-node", async () => {
  const from = project({
    "@brain-mcp/onnxruntime-linux-arm64-gnu": { version: "1.30.0", main: WORKING },
    "onnxruntime-node": { version: "1.29.0", main: BROKEN },
  });
  const runtime = await loadModelRuntime({}, { from, target: "linux-arm64-gnu" });
  expect(runtime).toMatchObject({ name: "native", source: "@brain-mcp/onnxruntime-linux-arm64-gnu 1.30.0" });
  expect(runtime.int64(new BigInt64Array([1n]), [1, 1]).dims).toEqual([1, 1]);
  expect(describeModelRuntime({ BRAIN_MODEL_RUNTIME: "auto" }, { from, target: "linux-arm64-gnu" })).toEqual({
    runtime: "native",
    package: "@brain-mcp/onnxruntime-linux-arm64-gnu 1.30.0",
  });
  // another platform's package is not this one's: the user's onnxruntime-node is next (here it fails to load)
  await expect(loadModelRuntime({ BRAIN_MODEL_RUNTIME: "native" }, { from, target: "win32-x64" })).rejects.toThrow(
    "BRAIN_MODEL_RUNTIME=native but onnxruntime-node 1.29.0 did not load: libonnxruntime.so.1: cannot open shared object file",
  );
});

it("a user-installed onnxruntime-node still works where no platform package is installed", async () => {
  const from = project({ "onnxruntime-node": { version: "1.30.0", main: WORKING } });
  expect(await loadModelRuntime({ BRAIN_MODEL_RUNTIME: "native" }, { from, target: "linux-x64-gnu" })).toMatchObject({
    name: "native",
    source: "onnxruntime-node 1.30.0",
  });
});

it("a native package that does not load: auto falls back to WebAssembly and says why once; native refuses", async () => {
  const from = project({ "@brain-mcp/onnxruntime-linux-x64-gnu": { version: "1.30.0", main: BROKEN } });
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    expect((await loadModelRuntime({}, { from, target: "linux-x64-gnu" })).name).toBe("wasm");
    expect((await loadModelRuntime({}, { from, target: "linux-x64-gnu" })).name).toBe("wasm");
    const said = stderr.mock.calls.map(([line]) => String(line));
    expect(said).toEqual([
      "brain-mcp: @brain-mcp/onnxruntime-linux-x64-gnu 1.30.0 did not load: libonnxruntime.so.1: cannot open shared object file; the model runs on WebAssembly\n",
    ]);
  } finally {
    stderr.mockRestore();
  }
  await expect(loadModelRuntime({ BRAIN_MODEL_RUNTIME: "native" }, { from, target: "linux-x64-gnu" })).rejects.toThrow(
    /^BRAIN_MODEL_RUNTIME=native but @brain-mcp\/onnxruntime-linux-x64-gnu 1\.30\.0 did not load: libonnxruntime/,
  );
});

it.skipIf(nativeInstalled)("BRAIN_MODEL_RUNTIME=native without any native runtime says what to install", async () => {
  await expect(loadModelRuntime({ BRAIN_MODEL_RUNTIME: "native" }, { from: project({}) })).rejects.toThrow(
    /no native runtime is installed for .*: reinstall brain-mcp-service with optional dependencies, or npm install onnxruntime-node/,
  );
});

it("an unknown BRAIN_MODEL_RUNTIME is refused with the values it takes", async () => {
  await expect(loadModelRuntime({ BRAIN_MODEL_RUNTIME: "gpu" })).rejects.toThrow(/auto, native or wasm/);
  expect(() => describeModelRuntime({ BRAIN_MODEL_RUNTIME: "gpu" })).toThrow(/auto, native or wasm/);
});
