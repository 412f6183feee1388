#!/usr/bin/env node
// The one entry point: the MCP stdio adapter by default, or a subcommand (serve, admin, remember, recall, ...).
import module from "node:module";

// Node 22.1+ caches compiled code between launches (hosts spawn the adapter often); a no-op on Node 20.
module.enableCompileCache?.();

const { main } = await import("../dist/cli/main.js");
await main(process.argv.slice(2));
