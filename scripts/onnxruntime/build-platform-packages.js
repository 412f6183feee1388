#!/usr/bin/env node
// Builds the native model runtime's per-platform packages (@brain-mcp/onnxruntime-<target>, issue 27) from the
// official onnxruntime-node tarball on the npm registry, at the version package-lock.json has for onnxruntime-web:
// each holds onnxruntime-node's own dist/*.js (unchanged: it requires ../bin/napi-v6/<platform>/<arch>/) and that one
// platform's CPU binaries, with os/cpu/libc fields, onnxruntime's LICENSE and ThirdPartyNotices.txt, a SHA256SUMS, and
// no install script. The tarball and every file taken from it must match checksums.json (committed); --update rewrites
// it after a deliberate version change. Binaries are never committed: this script makes them at pack time.
// Usage: npm run build && node scripts/onnxruntime/build-platform-packages.js [--target host|all|TARGET] [--pack DIR] [--update]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const here = join(root, "scripts", "onnxruntime");
const work = join(root, ".tmp", "onnxruntime");
const CHECKSUMS = join(here, "checksums.json");
/** npm pack of a 114 MB tarball: bounded, as every call to another system is. */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;
/** The JavaScript onnxruntime-node loads in Node (its sources, maps and install scripts are left out). */
const JS_FILES = ["dist/index.js", "dist/backend.js", "dist/binding.js", "dist/version.js"];
/**
 * The CPU binaries per target, in onnxruntime-node's own layout. macOS: the binding links @rpath/libonnxruntime.1.dylib
 * only. Windows: onnxruntime.dll loads DirectML.dll (and DirectML its dxcompiler/dxil) only through its delay-import
 * table, i.e. only for the DirectML execution provider, which the CPU runtime never asks for.
 */
const BINARIES = {
  "linux-x64-gnu": ["linux/x64", ["onnxruntime_binding.node", "libonnxruntime.so.1"]],
  "linux-arm64-gnu": ["linux/arm64", ["onnxruntime_binding.node", "libonnxruntime.so.1"]],
  "darwin-arm64": ["darwin/arm64", ["onnxruntime_binding.node", "libonnxruntime.1.dylib"]],
  "win32-x64": ["win32/x64", ["onnxruntime_binding.node", "onnxruntime.dll"]],
};
const NOTICES = ["LICENSE", "ThirdPartyNotices.txt"];

function fail(message) {
  console.error(`onnxruntime packages: ${message}`);
  process.exit(1);
}

const sha256 = (data) => createHash("sha256").update(data).digest("hex");

/** onnxruntime-web's version in package-lock.json: the native runtime is the same release. */
function ortVersion() {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
  const version = lock.packages?.["node_modules/onnxruntime-web"]?.version;
  if (!version) fail("package-lock.json has no node_modules/onnxruntime-web");
  return version;
}

/** The official tarball, from the npm registry (kept in .tmp/ between runs), checked against checksums.json. */
function fetchTarball(version, recorded, update) {
  mkdirSync(work, { recursive: true });
  const tgz = join(work, `onnxruntime-node-${version}.tgz`);
  if (!existsSync(tgz)) {
    execFileSync("npm", ["pack", `onnxruntime-node@${version}`, "--silent", "--pack-destination", work], {
      stdio: ["ignore", "ignore", "inherit"],
      timeout: DOWNLOAD_TIMEOUT_MS,
    });
  }
  const data = readFileSync(tgz);
  const digest = { sha256: sha256(data), integrity: `sha512-${createHash("sha512").update(data).digest("base64")}` };
  if (!update) {
    if (recorded?.version !== version)
      fail(`checksums.json is for onnxruntime-node ${recorded?.version}, not ${version} (run with --update)`);
    if (recorded.integrity !== digest.integrity || recorded.sha256 !== digest.sha256) {
      rmSync(tgz, { force: true });
      fail(`onnxruntime-node-${version}.tgz does not match checksums.json (sha256 ${digest.sha256}): removed`);
    }
  }
  return { tgz, digest };
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) =>
      relative(dir, join(e.parentPath ?? e.path, e.name))
        .split("\\")
        .join("/"),
    )
    .sort();
}

function manifestFor(target, spec, version, upstream) {
  const { os, cpu, libc } = spec;
  const where = { linux: "Linux", darwin: "macOS", win32: "Windows" }[os];
  return {
    name: `${spec.prefix}${target}`,
    version,
    description: `onnxruntime-node ${version}'s CPU runtime for ${where} ${cpu}${libc ? ` (${libc})` : ""} only, for brain-mcp-service: its JavaScript and one platform's binaries; no install script`,
    license: upstream.license,
    repository: upstream.repository,
    os: [os],
    cpu: [cpu],
    ...(libc ? { libc: [libc] } : {}),
    main: "dist/index.js",
    files: ["dist", "bin", ...NOTICES, "README.md", "SHA256SUMS"],
    dependencies: { "onnxruntime-common": upstream.dependencies["onnxruntime-common"] },
  };
}

/** Stages one target's package from the extracted tarball; returns its files' checksums. */
function stageTarget(target, spec, version, extracted, upstream, digest) {
  const [folder, names] = BINARIES[target] ?? fail(`no binaries are listed for ${target}`);
  const stage = join(work, "packages", target);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const file of [...JS_FILES, ...names.map((n) => `bin/napi-v6/${folder}/${n}`)]) {
    const from = join(extracted, file);
    if (!existsSync(from)) fail(`onnxruntime-node ${version} has no ${file}`);
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    cpSync(from, join(stage, file));
  }
  for (const notice of NOTICES) cpSync(join(here, "notices", notice), join(stage, notice));
  const manifest = manifestFor(target, spec, version, upstream);
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(stage, "README.md"),
    [
      `# ${manifest.name}`,
      "",
      `${manifest.description}.`,
      "",
      `Taken unchanged from [onnxruntime-node](https://www.npmjs.com/package/onnxruntime-node) ${version}`,
      `(${digest.integrity}): \`dist/*.js\` and \`bin/napi-v6/${folder}/\`. ONNX Runtime is MIT-licensed by Microsoft`,
      "(LICENSE); the notices of the software it includes are in ThirdPartyNotices.txt. SHA256SUMS lists every file.",
      "brain-mcp-service lists it as an optional dependency and loads it as onnxruntime-node's own code does.",
      "",
    ].join("\n"),
  );
  const sums = Object.fromEntries(filesUnder(stage).map((f) => [f, sha256(readFileSync(join(stage, f)))]));
  writeFileSync(
    join(stage, "SHA256SUMS"),
    [`# from onnxruntime-node-${version}.tgz ${digest.integrity}`, ...Object.entries(sums).map(([f, s]) => `${s}  ${f}`), ""].join("\n"),
  );
  return { stage, sums };
}

function sizeOf(dir) {
  return filesUnder(dir).reduce((bytes, f) => bytes + statSync(join(dir, f)).size, 0);
}

export async function buildPlatformPackages({ targets = "all", update = false } = {}) {
  const runtimeModule = join(root, "dist", "service", "models", "embed", "runtime.js");
  if (!existsSync(runtimeModule)) fail("dist/ is not built (run npm run build first)");
  const { NATIVE_TARGETS, NATIVE_PACKAGE_PREFIX, hostTarget } = await import(pathToFileURL(runtimeModule).href);
  const wanted = targets === "host" ? [hostTarget()] : targets === "all" ? NATIVE_TARGETS.map((t) => t.target) : [targets];
  const recorded = existsSync(CHECKSUMS) ? JSON.parse(readFileSync(CHECKSUMS, "utf8")) : {};
  for (const notice of NOTICES) {
    const digest = sha256(readFileSync(join(here, "notices", notice)));
    if (!update && recorded.notices?.[notice] !== digest) fail(`notices/${notice} does not match checksums.json (sha256 ${digest})`);
  }
  const version = ortVersion();
  const { tgz, digest } = fetchTarball(version, recorded["onnxruntime-node"], update);
  const extracted = join(work, `onnxruntime-node-${version}`);
  if (!existsSync(join(extracted, "package.json"))) {
    mkdirSync(extracted, { recursive: true });
    execFileSync("tar", ["-xzf", tgz, "-C", extracted, "--strip-components=1"], { stdio: "inherit" });
  }
  const upstream = JSON.parse(readFileSync(join(extracted, "package.json"), "utf8"));
  const built = [];
  for (const target of wanted) {
    const spec = NATIVE_TARGETS.find((t) => t.target === target);
    if (!spec) fail(`no native package for ${target} (targets: ${NATIVE_TARGETS.map((t) => t.target).join(", ")})`);
    const { stage, sums } = stageTarget(target, { ...spec, prefix: NATIVE_PACKAGE_PREFIX }, version, extracted, upstream, digest);
    if (!update) {
      const expected = recorded.packages?.[target];
      for (const [file, sum] of Object.entries(sums)) {
        if (expected?.[file] !== sum) fail(`${target}/${file} does not match checksums.json (sha256 ${sum})`);
      }
      const missing = Object.keys(expected ?? {}).filter((f) => !(f in sums));
      if (missing.length > 0) fail(`${target} lacks ${missing.join(", ")}`);
    }
    built.push({ target, name: `${NATIVE_PACKAGE_PREFIX}${target}`, stage, sums, bytes: sizeOf(stage) });
  }
  if (update) {
    const packages = { ...(recorded.packages ?? {}) };
    for (const b of built) packages[b.target] = b.sums;
    const notices = Object.fromEntries(NOTICES.map((n) => [n, sha256(readFileSync(join(here, "notices", n)))]));
    notices.from = recorded.notices?.from;
    writeFileSync(CHECKSUMS, `${JSON.stringify({ "onnxruntime-node": { version, ...digest }, notices, packages }, null, 2)}\n`);
  }
  return { version, built };
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const { version, built } = await buildPlatformPackages({ targets: option("--target") ?? "all", update: argv.includes("--update") });
  for (const b of built) {
    console.log(`${b.name}@${version} staged in ${relative(root, b.stage)}: ${(b.bytes / 1e6).toFixed(1)} MB, checksums match`);
  }
  const destination = option("--pack");
  if (destination !== undefined) {
    mkdirSync(destination, { recursive: true });
    for (const b of built) {
      const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", destination], { cwd: b.stage, encoding: "utf8" });
      const tgz = join(destination, out.trim().split("\n").pop());
      console.log(`${tgz} sha256 ${sha256(readFileSync(tgz))}`);
    }
  }
}
