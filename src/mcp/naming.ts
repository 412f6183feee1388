// Which spelling of the four tool names a session gets (DESIGN.md "The adapter", "Tool names").

import type { ToolNameMode } from "../config/env.js";

export type NameStyle = "dotted" | "underscore";

/**
 * Clients (by initialize `clientInfo.name`) known to reject tool names with a dot.
 * - `claude-ai`: what Claude Desktop reports in initialize, seen in its log in 0x4m4/hexstrike-ai#11
 *   (`"clientInfo":{"name":"claude-ai","version":"0.1.0"}`).
 * - Claude Desktop validates every tool name against ^[a-zA-Z0-9_-]{1,64}$ and then withholds all of the
 *   server's tools: barryw/ImmichMCP#3 and evoila/meho#2745 (the all-or-nothing rejection), mattt/iMCP#71.
 */
export const DOT_REJECTING_CLIENTS: readonly string[] = ["claude-ai"];

export function nameStyleFor(mode: ToolNameMode, clientName: string | undefined): NameStyle {
  if (mode === "dotted" || mode === "underscore") return mode;
  const name = clientName?.trim().toLowerCase();
  return name && DOT_REJECTING_CLIENTS.includes(name) ? "underscore" : "dotted";
}

/** `brain.remember` or `brain_remember`. */
export function toolName(base: string, style: NameStyle): string {
  return `brain${style === "dotted" ? "." : "_"}${base}`;
}
