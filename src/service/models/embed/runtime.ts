// The ONNX runtime the sentence model runs on (docs/decisions.md, issue 27). The native CPU runtime comes in the
// service package's optional dependency for this platform (@brain-mcp/onnxruntime-<target>: onnxruntime-node's own
// JavaScript and this platform's CPU binaries, no install script; built by scripts/onnxruntime/); npm installs only
// the one whose os/cpu/libc match. An onnxruntime-node the user installed is used where no such package is present.
// Elsewhere onnxruntime-web's WebAssembly build (a bundled dependency) runs it. BRAIN_MODEL_RUNTIME=wasm|native|auto.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

export type RuntimeName = "native" | "wasm";

/** The part of ONNX Runtime's JavaScript API the sentence model uses (the same in both packages). */
type Ort = typeof import("onnxruntime-web");
export type InferenceSession = import("onnxruntime-web").InferenceSession;
export type Tensor = import("onnxruntime-web").Tensor;

export interface ModelRuntime {
  name: RuntimeName;
  /** Where it came from, for the start line: e.g. "@brain-mcp/onnxruntime-linux-x64-gnu 1.30.0". */
  source: string;
  /** An int64 tensor of the given shape. */
  int64(data: BigInt64Array, shape: number[]): Tensor;
  /** A session over the ONNX file, one thread per run: the service runs the model in its own worker. */
  open(modelFile: string): Promise<InferenceSession>;
}

/** The package to install when no runtime loads (the service package's own dependency). */
export const RUNTIME_PACKAGE = "onnxruntime-web";
/** The native runtime's per-platform packages are this prefix plus the target. */
export const NATIVE_PACKAGE_PREFIX = "@brain-mcp/onnxruntime-";
/** The targets a native package is built for (onnxruntime-node 1.30.0 ships no macOS x64 binary). */
export const NATIVE_TARGETS = [
  { target: "linux-x64-gnu", os: "linux", cpu: "x64", libc: "glibc" },
  { target: "linux-arm64-gnu", os: "linux", cpu: "arm64", libc: "glibc" },
  { target: "darwin-arm64", os: "darwin", cpu: "arm64" },
  { target: "win32-x64", os: "win32", cpu: "x64" },
] as const;
/** onnxruntime-node as the user may install it themselves. */
const USER_NATIVE_PACKAGE = "onnxruntime-node";

const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "all" } as const;
const require = createRequire(import.meta.url);

/** Where to look (tests): the machine's target, and the file packages resolve from (default: this module). */
export interface RuntimeLookup {
  target?: string;
  from?: string;
}

/** This machine's target, as the native packages are named: linux-x64-gnu, linux-x64-musl, darwin-arm64, win32-x64. */
export function hostTarget(platform: string = process.platform, arch: string = process.arch, glibc: boolean = isGlibc()): string {
  return platform === "linux" ? `linux-${arch}-${glibc ? "gnu" : "musl"}` : `${platform}-${arch}`;
}

function isGlibc(): boolean {
  if (process.platform !== "linux") return false;
  // musl's dynamic loader is /lib/ld-musl-<arch>.so.1 (what detect-libc checks too); process.report would be slower
  try {
    return !readdirSync("/lib").some((name) => name.startsWith("ld-musl-"));
  } catch {
    return true;
  }
}

function wantedRuntime(env: NodeJS.ProcessEnv): "auto" | RuntimeName {
  const wanted = env.BRAIN_MODEL_RUNTIME?.trim().toLowerCase() || "auto";
  if (wanted !== "auto" && wanted !== "native" && wanted !== "wasm") {
    throw new Error(`BRAIN_MODEL_RUNTIME must be auto, native or wasm (got ${JSON.stringify(wanted)})`);
  }
  return wanted;
}

/** The native packages installed here, best first: this platform's package, then a user-installed onnxruntime-node. */
function nativeCandidates(target: string, from: NodeJS.Require): { name: string; version: string; load: () => Ort }[] {
  const found: { name: string; version: string; load: () => Ort }[] = [];
  for (const name of [`${NATIVE_PACKAGE_PREFIX}${target}`, USER_NATIVE_PACKAGE]) {
    try {
      const manifest = JSON.parse(readFileSync(from.resolve(`${name}/package.json`), "utf8")) as { version?: string };
      found.push({ name, version: manifest.version ?? "?", load: () => from(name) as Ort });
    } catch {
      // not installed (npm skipped the optional package: another platform)
    }
  }
  return found;
}

export interface RuntimeChoice {
  runtime: RuntimeName;
  /** The package it comes from, with its version. */
  package: string;
  /** Why it is not the native runtime, when it is not. */
  reason?: string;
}

/**
 * The runtime loadModelRuntime will pick, found without loading it (cheap: the service says it once at start while
 * the model loads in its workers). A native package that is present but fails to load says so when it fails.
 */
export function describeModelRuntime(env: NodeJS.ProcessEnv = process.env, lookup: RuntimeLookup = {}): RuntimeChoice {
  const wanted = wantedRuntime(env);
  const target = lookup.target ?? hostTarget();
  const native = wanted === "wasm" ? undefined : nativeCandidates(target, requireFrom(lookup))[0];
  if (native) return { runtime: "native", package: `${native.name} ${native.version}` };
  const reason =
    wanted === "wasm"
      ? "BRAIN_MODEL_RUNTIME=wasm"
      : NATIVE_TARGETS.some((t) => t.target === target)
        ? `${NATIVE_PACKAGE_PREFIX}${target} is not installed (optional dependencies skipped?): slower, larger`
        : `no native runtime package for ${target}: slower, larger`;
  return { runtime: "wasm", package: `${RUNTIME_PACKAGE} ${wasmVersion()}`, reason };
}

function requireFrom(lookup: RuntimeLookup): NodeJS.Require {
  return lookup.from ? createRequire(lookup.from) : require;
}

function wasmVersion(): string {
  try {
    // onnxruntime-web's exports may not list its package.json: find it above its entry
    let dir = dirname(require.resolve(RUNTIME_PACKAGE));
    while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

const warned = new Set<string>();
/** Once per thread: the model loads in each worker, and a failure to load says why only once there. */
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`brain-mcp: ${message}\n`);
}

/** The runtime BRAIN_MODEL_RUNTIME asks for; by default the native one where a package for it is installed. */
export async function loadModelRuntime(env: NodeJS.ProcessEnv = process.env, lookup: RuntimeLookup = {}): Promise<ModelRuntime> {
  const wanted = wantedRuntime(env);
  if (wanted !== "wasm") {
    const target = lookup.target ?? hostTarget();
    const failures: string[] = [];
    for (const candidate of nativeCandidates(target, requireFrom(lookup))) {
      try {
        return nativeRuntime(candidate.load(), `${candidate.name} ${candidate.version}`);
      } catch (error) {
        // a binary that does not load here (an older glibc, a missing system library): say why, try the next
        failures.push(`${candidate.name} ${candidate.version} did not load: ${(error as Error).message.split("\n")[0]}`);
      }
    }
    if (wanted === "native") {
      throw new Error(
        failures.length > 0
          ? `BRAIN_MODEL_RUNTIME=native but ${failures.join("; ")}`
          : `BRAIN_MODEL_RUNTIME=native but no native runtime is installed for ${target}: reinstall brain-mcp-service with optional dependencies, or npm install onnxruntime-node`,
      );
    }
    for (const failure of failures) warnOnce(`${failure}; the model runs on WebAssembly`);
  }
  return wasmRuntime((await import("onnxruntime-web")) as Ort);
}

function nativeRuntime(ort: Ort, source: string): ModelRuntime {
  return {
    name: "native",
    source,
    int64: (data, shape) => new ort.Tensor("int64", data, shape),
    open: (modelFile) => ort.InferenceSession.create(modelFile, SESSION_OPTIONS),
  };
}

function wasmRuntime(ort: Ort): ModelRuntime {
  // one thread: threads would start workers of their own beside the service's embed worker
  ort.env.wasm.numThreads = 1;
  return {
    name: "wasm",
    source: `${RUNTIME_PACKAGE} ${wasmVersion()}`,
    int64: (data, shape) => new ort.Tensor("int64", data, shape),
    // the WebAssembly build reads the model from memory (it cannot open files itself)
    open: async (modelFile) => ort.InferenceSession.create(new Uint8Array(await readFile(modelFile)), SESSION_OPTIONS),
  };
}
