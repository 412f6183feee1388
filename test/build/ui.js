#!/usr/bin/env node
// Builds dist/ui/: the dashboard's page (`brain-mcp ui`) as one esbuild bundle of src/ui (Preact, JSX), its
// stylesheet and index.html. Everything the page needs ships in these files; nothing loads from elsewhere.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const outdir = join(root, "dist", "ui");

export async function buildUi() {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: { app: join(root, "src", "ui", "app.tsx") },
    outdir,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });
  copyFileSync(join(root, "src", "ui", "index.html"), join(outdir, "index.html"));
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const result = await buildUi();
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  console.log(`dist/ui: ${(bytes / 1024).toFixed(0)} KiB in ${(performance.now() - started).toFixed(0)} ms`);
}
