// The ONNX runtime the sentence model runs on. onnxruntime-web's WebAssembly build is the service package's
// dependency: it installs from the npm registry alone on every platform (no install script, no download; see
// docs/decisions.md, issue 20). onnxruntime-node is about 2.5 times faster but never a dependency (its install
// script downloads GPU libraries, and it weighs 288 MB): it is used when the user installed it themselves.
// BRAIN_MODEL_RUNTIME=wasm|native picks one explicitly.
import { readFile } from "node:fs/promises";

export type RuntimeName = "native" | "wasm";

/** The part of ONNX Runtime's JavaScript API the sentence model uses (the same in both packages). */
type Ort = typeof import("onnxruntime-web");
export type InferenceSession = import("onnxruntime-web").InferenceSession;
export type Tensor = import("onnxruntime-web").Tensor;

export interface ModelRuntime {
  name: RuntimeName;
  /** An int64 tensor of the given shape. */
  int64(data: BigInt64Array, shape: number[]): Tensor;
  /** A session over the ONNX file, one thread per run: the service runs the model in its own worker. */
  open(modelFile: string): Promise<InferenceSession>;
}

/** The package to install when no runtime loads (the service package's own dependency). */
export const RUNTIME_PACKAGE = "onnxruntime-web";

const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "all" } as const;

/** The runtime BRAIN_MODEL_RUNTIME asks for, or onnxruntime-node when installed, else onnxruntime-web. */
export async function loadModelRuntime(env: NodeJS.ProcessEnv = process.env): Promise<ModelRuntime> {
  const wanted = env.BRAIN_MODEL_RUNTIME?.trim().toLowerCase() || "auto";
  if (wanted !== "auto" && wanted !== "native" && wanted !== "wasm") {
    throw new Error(`BRAIN_MODEL_RUNTIME must be auto, native or wasm (got ${JSON.stringify(wanted)})`);
  }
  if (wanted !== "wasm") {
    const native = await importNative();
    if (native) return native;
    if (wanted === "native")
      throw new Error("BRAIN_MODEL_RUNTIME=native but onnxruntime-node is not installed: npm install onnxruntime-node");
  }
  return wasmRuntime((await import("onnxruntime-web")) as Ort);
}

async function importNative(): Promise<ModelRuntime | null> {
  let ort: Ort;
  try {
    // a variable specifier: not a dependency, so neither TypeScript nor a bundler should resolve it
    const specifier = "onnxruntime-node";
    ort = (await import(specifier)) as Ort;
  } catch {
    return null;
  }
  return {
    name: "native",
    int64: (data, shape) => new ort.Tensor("int64", data, shape),
    open: (modelFile) => ort.InferenceSession.create(modelFile, SESSION_OPTIONS),
  };
}

function wasmRuntime(ort: Ort): ModelRuntime {
  // one thread: threads would start workers of their own beside the service's embed worker
  ort.env.wasm.numThreads = 1;
  return {
    name: "wasm",
    int64: (data, shape) => new ort.Tensor("int64", data, shape),
    // the WebAssembly build reads the model from memory (it cannot open files itself)
    open: async (modelFile) => ort.InferenceSession.create(new Uint8Array(await readFile(modelFile)), SESSION_OPTIONS),
  };
}
