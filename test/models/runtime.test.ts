// The model runtime installs from npm alone: onnxruntime-web's WebAssembly build unless the user installed
// onnxruntime-node themselves (never a dependency), and BRAIN_MODEL_RUNTIME picks one or says what is missing.
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { loadModelRuntime } from "../../src/service/models/embed/runtime.js";

const nativeInstalled = (() => {
  try {
    createRequire(import.meta.url).resolve("onnxruntime-node");
    return true;
  } catch {
    return false;
  }
})();

it("BRAIN_MODEL_RUNTIME=wasm runs the model on onnxruntime-web's WebAssembly build", async () => {
  const runtime = await loadModelRuntime({ BRAIN_MODEL_RUNTIME: "wasm" });
  expect(runtime.name).toBe("wasm");
  expect(runtime.int64(new BigInt64Array([1n, 2n]), [1, 2]).dims).toEqual([1, 2]);
});

it("by default the runtime is onnxruntime-node only when it is installed, else WebAssembly", async () => {
  expect((await loadModelRuntime({})).name).toBe(nativeInstalled ? "native" : "wasm");
});

it.skipIf(nativeInstalled)("BRAIN_MODEL_RUNTIME=native without onnxruntime-node says what to install", async () => {
  await expect(loadModelRuntime({ BRAIN_MODEL_RUNTIME: "native" })).rejects.toThrow(/npm install onnxruntime-node/);
});

it("an unknown BRAIN_MODEL_RUNTIME is refused with the values it takes", async () => {
  await expect(loadModelRuntime({ BRAIN_MODEL_RUNTIME: "gpu" })).rejects.toThrow(/auto, native or wasm/);
});
