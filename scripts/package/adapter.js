#!/usr/bin/env node
// prepack's check of the adapter package (brain-mcp, this repository's package.json), after `npm run build`: the
// bundle is current and needs no package but the service package (loaded only when asked for), and the client
// library needs only the files and dependencies package.json declares. A failure stops `npm pack`/`npm publish`.
import { build } from "esbuild";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const SERVICE_PACKAGE = "brain-mcp-service";
const problems = [];

const builtin = (name) => name.startsWith("node:") || builtinModules.includes(name.split("/")[0]);
const packageOf = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
/** Whether `file` (relative to the root) is in the package by package.json's `files`. */
const packed = (file) =>
  !file.endsWith(".map") && manifest.files.some((entry) => !entry.startsWith("!") && (file === entry || file.startsWith(`${entry}/`)));

const bundleDir = join(root, "dist", "bundle");
const entry = join(bundleDir, "brain-mcp.js");
if (!existsSync(entry)) problems.push("dist/bundle/brain-mcp.js is missing: run npm run build");
else if (statSync(entry).mtimeMs < statSync(join(root, "dist", "cli", "main.js")).mtimeMs) {
  problems.push("dist/bundle is older than dist/cli/main.js: run npm run build");
} else {
  for (const file of readdirSync(bundleDir)) {
    const code = readFileSync(join(bundleDir, file), "utf8");
    for (const [, specifier] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)"([^"]+)"/g)) {
      if (specifier.startsWith(".") || builtin(specifier) || specifier === SERVICE_PACKAGE) continue;
      problems.push(`dist/bundle/${file} imports ${specifier}: the adapter's bundle must carry its dependencies`);
    }
  }
}

// The client library (`import { Brain } from "brain-mcp"`): its files are packed, its packages are dependencies.
const library = await build({
  entryPoints: [join(root, manifest.exports["."].default)],
  bundle: true,
  write: false,
  metafile: true,
  platform: "node",
  format: "esm",
  packages: "external",
  logLevel: "silent",
});
for (const input of Object.keys(library.metafile.inputs)) {
  const file = relative(root, join(root, input)).split("\\").join("/");
  if (!packed(file)) problems.push(`the client library needs ${file}, which package.json's files leave out`);
  for (const { path, external } of library.metafile.inputs[input].imports) {
    if (external && !builtin(path) && !manifest.dependencies?.[packageOf(path)] && !manifest.peerDependencies?.[packageOf(path)]) {
      problems.push(`${file} imports ${path}, which is not in package.json's dependencies or peerDependencies`);
    }
  }
}

const version = /VERSION = "([^"]+)"/.exec(readFileSync(join(root, "dist", "version.js"), "utf8"))?.[1];
if (version !== manifest.version) problems.push(`dist/version.js says ${version}, package.json ${manifest.version}`);
for (const [name, target] of Object.entries({
  ...manifest.bin,
  ...Object.fromEntries(Object.entries(manifest.exports).map(([k, v]) => [k, v.default ?? v])),
})) {
  if (!existsSync(join(root, target))) problems.push(`${name} points at ${target}, which does not exist`);
}
if (manifest.optionalDependencies)
  problems.push("the adapter package has optionalDependencies: the service's packages belong to brain-mcp-service");

if (problems.length) {
  for (const problem of problems) console.error(`adapter package: ${problem}`);
  process.exit(1);
}
console.log(`adapter package: bundle and client library checked (dependencies: ${Object.keys(manifest.dependencies).join(", ")})`);
