// brain.memory: store and retrieve. Shapes the request; the core sends it.
import { ROUTES } from "../../contract/wire.js";
import type { Core, RequestOptions } from "../core.js";
import { RetrieveResponseSchema, StoreResponseSchema, type RetrieveResponse, type StoreResponse } from "../schemas.js";

export interface RetrieveOptions {
  /** How many memories at most (the service allows 1..50, default 5). Sent as `top_k`. */
  topK?: number;
  /** The lowest hybrid score to return (0..1); the service's default, MIN_SCORE_DEFAULT, when omitted. Sent as `min_score`. */
  minScore?: number;
}

export class Memory {
  constructor(private readonly core: Core) {}

  /** Stores `text` (with optional `meta`); one Idempotency-Key covers every attempt, so a retry never stores twice. */
  store(text: string, meta?: Record<string, unknown>, options?: RequestOptions): Promise<StoreResponse> {
    const body = meta === undefined ? { text } : { text, meta };
    return this.core.request({ route: ROUTES.store, body, schema: StoreResponseSchema, idempotent: true }, options);
  }

  /** The memories most relevant to `query`, best first. */
  retrieve(query: string, retrieveOptions: RetrieveOptions = {}, options?: RequestOptions): Promise<RetrieveResponse> {
    const body: { query: string; top_k?: number; min_score?: number } = { query };
    if (retrieveOptions.topK !== undefined) body.top_k = retrieveOptions.topK;
    if (retrieveOptions.minScore !== undefined) body.min_score = retrieveOptions.minScore;
    return this.core.request({ route: ROUTES.retrieve, body, schema: RetrieveResponseSchema }, options);
  }
}
