#!/usr/bin/env node
// The one entry point: the MCP stdio adapter by default, or a subcommand (serve, admin, remember, recall, ...).
import module from "node:module";
import { statSync } from "node:fs";

// Node 22.1+ caches compiled code between launches (hosts spawn the adapter often); a no-op on Node 20.
module.enableCompileCache?.();

const argv = process.argv.slice(2);
const bundle = new URL("../dist/bundle/brain-mcp.js", import.meta.url);
const compiled = new URL("../dist/cli/main.js", import.meta.url);

/** The bundle (`npm run build`; all the published package has) unless tsc has written dist/ since it was made. */
function bundleIsCurrent() {
  const modified = (file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  const compiledAt = modified(compiled);
  return compiledAt === undefined || (modified(bundle) ?? -1) >= compiledAt;
}

const { main } = await import(bundleIsCurrent() ? bundle.href : compiled.href);
await main(argv);
