// What every tool file exports: its declaration (name, title, description, schemas, annotations),
// the one client call it makes, and how its answer is rendered. Output schemas are the client's own response
// parsers: what the host is promised is exactly what the client accepts.

import type { z } from "zod";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { HealthResponse, RetrieveResponse, StatusResponse, StoreResponse } from "../../client/schemas.js";
import type { Operation } from "../render-error.js";

/** Per-call options the client accepts (one deadline for all attempts arrives as `signal`). */
export interface CallOptions {
  signal?: AbortSignal;
  timeout?: number;
  maxRetries?: number;
  idempotencyKey?: string;
}

/** The part of the client library (`Brain`) the adapter uses. */
export interface MemoryClient {
  memory: {
    store(text: string, meta?: Record<string, unknown>, opts?: CallOptions): Promise<StoreResponse>;
    retrieve(query: string, params?: { topK?: number; minScore?: number }, opts?: CallOptions): Promise<RetrieveResponse>;
  };
  optimize: { health(opts?: CallOptions): Promise<HealthResponse> };
  status(opts?: CallOptions): Promise<StatusResponse>;
  close(): Promise<void> | void;
}

export interface Tool<Input extends z.ZodType = z.ZodType, Output = unknown> {
  /** The name without its prefix: `remember` serves as `brain.remember` or `brain_remember`. */
  base: Operation;
  title: string;
  description: string;
  inputSchema: Input;
  outputSchema: z.ZodType;
  annotations: Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">>;
  call(client: MemoryClient, input: z.output<Input>, opts: CallOptions): Promise<Output>;
  render(output: Output): string;
}

/** Keeps each tool's input type tied to its schema while the list stays one array. */
export function defineTool<Input extends z.ZodType, Output>(tool: Tool<Input, Output>): Tool<Input, Output> {
  return tool;
}
