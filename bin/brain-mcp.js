#!/usr/bin/env node
// The one entry point: the MCP stdio adapter by default, or a subcommand (serve, admin, remember, recall, ...).
import { main } from "../dist/cli/main.js";

await main(process.argv.slice(2));
