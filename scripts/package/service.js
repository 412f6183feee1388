#!/usr/bin/env node
// Stages and checks the service package (brain-mcp-service) from this repository's build, and packs it with --pack.
// The repository's own package.json is the adapter package (brain-mcp); the service package is built from the same
// dist/ with a package.json of its own (docs/decisions.md, issue 20): the service's code, the model with its checksums,
// onnxruntime-web's WebAssembly build as a bundled dependency cut to the three files Node uses, and the native CPU
// runtime's per-platform packages as optional dependencies (npm installs the one matching os/cpu/libc; issue 27; built
// and packed by scripts/onnxruntime/build-platform-packages.js).
// Usage: npm run build && node scripts/package/service.js [--pack DIR]
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const stage = join(root, ".tmp", "service-package");
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
export const SERVICE_PACKAGE = "brain-mcp-service";
/** The service's npm dependencies (the repository's devDependencies, at the same ranges). */
const RUNTIME_DEPENDENCIES = [
  "@hono/node-server",
  "@huggingface/tokenizers",
  "better-sqlite3",
  "env-paths",
  "hono",
  "pg",
  "standardwebhooks",
  "undici",
  "zod",
];
/** onnxruntime-web as Node loads it: its entry for Node and the one WebAssembly build that entry picks. */
const ORT_WEB_FILES = ["dist/ort.node.min.mjs", "dist/ort-wasm-simd-threaded.mjs", "dist/ort-wasm-simd-threaded.wasm"];
const MODEL_DIR = "dist/service/models/embed/data/minilm";

function fail(message) {
  console.error(`service package: ${message}`);
  process.exit(1);
}

function rangeOf(name) {
  const range = rootPackage.dependencies?.[name] ?? rootPackage.devDependencies?.[name];
  if (!range) fail(`${name} is not in package.json's dependencies or devDependencies`);
  return range;
}

function copyDist() {
  const dist = join(root, "dist");
  if (!existsSync(join(dist, "cli", "service-entry.js"))) fail("dist/ is not built (run npm run build first)");
  // tsc's output without the adapter's bundle, type declarations and source maps (the sources are not shipped)
  cpSync(dist, join(stage, "dist"), {
    recursive: true,
    filter: (from) => {
      const at = relative(dist, from).split("\\").join("/");
      return at !== "bundle" && !at.endsWith(".map") && !at.endsWith(".d.ts");
    },
  });
}

function copyOrtWeb() {
  const from = join(root, "node_modules", "onnxruntime-web");
  const original = JSON.parse(readFileSync(join(from, "package.json"), "utf8"));
  const to = join(stage, "node_modules", "onnxruntime-web");
  for (const file of [...ORT_WEB_FILES, "README.md"]) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(from, file), join(to, file));
  }
  const trimmed = {
    name: original.name,
    version: original.version,
    description: `${original.description} (the files brain-mcp-service uses in Node: WebAssembly, CPU)`,
    license: original.license,
    repository: original.repository,
    exports: { ".": { node: { import: "./dist/ort.node.min.mjs" } }, "./package.json": "./package.json" },
    dependencies: { "onnxruntime-common": original.dependencies["onnxruntime-common"] },
  };
  writeFileSync(join(to, "package.json"), `${JSON.stringify(trimmed, null, 2)}\n`);
  cpSync(join(root, "node_modules", "onnxruntime-common"), join(stage, "node_modules", "onnxruntime-common"), { recursive: true });
  return original.version;
}

/** The native runtime's packages, one per platform, at onnxruntime-web's version (the same ONNX Runtime release). */
async function nativeOptionalDependencies(ortVersion) {
  const { NATIVE_TARGETS, NATIVE_PACKAGE_PREFIX } = await import(
    pathToFileURL(join(root, "dist", "service", "models", "embed", "runtime.js")).href
  );
  return Object.fromEntries(NATIVE_TARGETS.map(({ target }) => [`${NATIVE_PACKAGE_PREFIX}${target}`, ortVersion]));
}

function writePackageJson(ortVersion, optionalDependencies) {
  const manifest = {
    name: SERVICE_PACKAGE,
    version: rootPackage.version,
    description: "The memory service behind brain-mcp: REST API, sentence model, SQLite and PostgreSQL stores, dashboard.",
    license: rootPackage.license,
    type: "module",
    engines: rootPackage.engines,
    bin: { [SERVICE_PACKAGE]: "bin/brain-mcp-service.js" },
    exports: { ".": "./dist/cli/service-entry.js", "./package.json": "./package.json" },
    files: ["bin", "dist", "README.md", "LICENSE"],
    dependencies: {
      // the adapter, the client and the CLI: exactly this version (the two check each other's version)
      "brain-mcp": rootPackage.version,
      ...Object.fromEntries(RUNTIME_DEPENDENCIES.map((name) => [name, rangeOf(name)])),
      "onnxruntime-common": `${ortVersion}`,
      "onnxruntime-web": `${ortVersion}`,
    },
    bundleDependencies: ["onnxruntime-common", "onnxruntime-web"],
    optionalDependencies,
  };
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

function writeBin() {
  mkdirSync(join(stage, "bin"), { recursive: true });
  const bin = join(stage, "bin", "brain-mcp-service.js");
  writeFileSync(
    bin,
    [
      "#!/usr/bin/env node",
      "// brain-mcp's command line with this package's service commands (serve, admin, ui, --embedded).",
      'import module from "node:module";',
      "module.enableCompileCache?.();",
      'const { main } = await import("brain-mcp/cli");',
      'await main(process.argv.slice(2), { service: () => import("../dist/cli/service-entry.js") });',
      "",
    ].join("\n"),
  );
  chmodSync(bin, 0o755);
}

function writeReadme() {
  cpSync(join(root, "LICENSE"), join(stage, "LICENSE"));
  writeFileSync(
    join(stage, "README.md"),
    [
      `# ${SERVICE_PACKAGE}`,
      "",
      "The memory service behind [brain-mcp](https://www.npmjs.com/package/brain-mcp): its REST API, the sentence",
      "model (all-MiniLM-L6-v2, run by ONNX Runtime's native CPU build from this platform's optional package",
      "`@brain-mcp/onnxruntime-<platform>`, else by onnxruntime-web's WebAssembly build; nothing is downloaded), the SQLite and",
      "PostgreSQL stores and the dashboard. It installs `brain-mcp` (the MCP adapter, client and CLI) of the same version.",
      "",
      "```sh",
      `npm install -g ${SERVICE_PACKAGE}`,
      `${SERVICE_PACKAGE} serve            # the REST API on 127.0.0.1:8787; prints a workspace key on first start`,
      "brain-mcp --embedded              # the MCP adapter with the service inside it",
      "```",
      "",
      "Everything else is in brain-mcp's README. Native packages exist for Linux x64/arm64 (glibc), macOS arm64 and",
      "Windows x64; elsewhere (or with optional dependencies omitted) the model runs on WebAssembly, slower and larger,",
      "and `serve` says so in its log at start.",
      "",
    ].join("\n"),
  );
}

/** Every model file is the one manifest.json names, byte for byte. */
function checkModel() {
  const dir = join(stage, MODEL_DIR);
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  for (const [name, { bytes, sha256 }] of Object.entries(manifest)) {
    const at = join(dir, name);
    if (!existsSync(at)) fail(`${MODEL_DIR}/${name} is missing`);
    const data = readFileSync(at);
    const digest = createHash("sha256").update(data).digest("hex");
    if (data.length !== bytes || digest !== sha256) fail(`${MODEL_DIR}/${name} does not match manifest.json (sha256 ${digest})`);
  }
  return Object.keys(manifest).length;
}

function sizeOf(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = join(dir, entry.name);
    bytes += entry.isDirectory() ? sizeOf(at) : statSync(at).size;
  }
  return bytes;
}

export async function stageServicePackage() {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  copyDist();
  const ortVersion = copyOrtWeb();
  writePackageJson(ortVersion, await nativeOptionalDependencies(ortVersion));
  writeBin();
  writeReadme();
  const modelFiles = checkModel();
  for (const file of [
    "dist/cli/service-entry.js",
    "dist/ui/index.html",
    "dist/contract/openapi.json",
    ...ORT_WEB_FILES.map((f) => `node_modules/onnxruntime-web/${f}`),
  ]) {
    if (!existsSync(join(stage, file))) fail(`${file} is missing from the stage`);
  }
  return { stage, modelFiles, bytes: sizeOf(stage) };
}

if (import.meta.url === `file://${process.argv[1]}` || fileURLToPath(import.meta.url) === process.argv[1]) {
  const { modelFiles, bytes } = await stageServicePackage();
  console.log(
    `service package staged in ${relative(root, stage)}: ${(bytes / 1e6).toFixed(1)} MB, ${modelFiles} model files match manifest.json`,
  );
  const at = process.argv.indexOf("--pack");
  if (at !== -1) {
    // relative to where the command runs (npm pack's own habit), never to the stage, which the next run deletes
    const destination = resolve(process.argv[at + 1] ?? root);
    mkdirSync(destination, { recursive: true });
    const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", destination], { cwd: stage, encoding: "utf8" });
    console.log(join(destination, out.trim().split("\n").pop()));
  }
}
