// The four tools, in the order they are listed. There are exactly four; adding one is a design change.

import { health } from "./health.js";
import { recall } from "./recall.js";
import { remember } from "./remember.js";
import { status } from "./status.js";
import type { Tool } from "./tool.js";

export const TOOLS: readonly Tool<any, any>[] = [remember, recall, health, status];

export { health, recall, remember, status };
export type { CallOptions, MemoryClient, Tool } from "./tool.js";
