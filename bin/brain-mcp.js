#!/usr/bin/env node
// The one entry point: the MCP stdio adapter by default, or a subcommand (serve, admin, remember, recall, ...).
import module from "node:module";
import { statSync } from "node:fs";

// Node 22.1+ caches compiled code between launches (hosts spawn the adapter often); a no-op on Node 20.
module.enableCompileCache?.();

const argv = process.argv.slice(2);
const bundle = new URL("../dist/bundle/brain-mcp.js", import.meta.url);
const compiled = new URL("../dist/cli/main.js", import.meta.url);

/** The bundle (`npm run build`) unless tsc has written dist/ since it was made: then it may be out of date. */
function bundleIsCurrent() {
  try {
    return statSync(bundle).mtimeMs >= statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
}

const { main } = await import(bundleIsCurrent() ? bundle.href : compiled.href);
await main(argv);
