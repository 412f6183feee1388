// Lenient parsers for the four responses (shapes in src/contract/wire.ts): unknown fields are kept, and the
// enumerations (workspace_status, dedup.action, temporal.type) are read as plain strings, so a server that adds
// a field or a value never breaks a client.
import { z } from "zod";

export const TemporalSchema = z
  .object({
    /** `persistent` or `time_bound` from the reference service; any string from others. */
    type: z.string(),
    /** ISO 8601 UTC; null for persistent memories. */
    valid_until: z.string().nullable(),
  })
  .loose();

export const StoreResponseSchema = z
  .object({
    status: z.string(),
    memory_id: z.string(),
    importance: z.number(),
    temporal: TemporalSchema,
    categories: z.array(z.string()),
    dedup: z
      .object({
        /** `stored_new` or `merged` from the reference service. */
        action: z.string(),
        existing_id: z.string().nullable(),
      })
      .loose(),
  })
  .loose();

export const RetrievedMemorySchema = z
  .object({
    memory_id: z.string(),
    text: z.string(),
    score: z.number(),
    similarity: z.number(),
    importance: z.number(),
    expired: z.boolean(),
    // The caller's meta beside the service's temporal and categories (optional: other servers may not add them).
    meta: z
      .object({
        temporal: TemporalSchema.optional(),
        categories: z.array(z.string()).optional(),
      })
      .loose(),
    created_at: z.string(),
    last_accessed_at: z.string().nullable(),
    access_count: z.number(),
  })
  .loose();

export const RetrieveResponseSchema = z
  .object({
    memories: z.array(RetrievedMemorySchema),
    count: z.number(),
  })
  .loose();

export const HealthSignalsSchema = z
  .object({
    total_memories: z.number(),
    stale_memories: z.number(),
    duplicate_memories: z.number(),
    overlong_memories: z.number(),
    never_retrieved_memories: z.number(),
    open_recommendations: z.number(),
  })
  .loose();

export const RecommendationSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    count: z.number(),
  })
  .loose();

export const HealthResponseSchema = z
  .object({
    quality_score: z.number(),
    signals: HealthSignalsSchema,
    recommendations: z.array(RecommendationSchema),
    generated_at: z.string(),
  })
  .loose();

export const StatusResponseSchema = z
  .object({
    healthy: z.boolean(),
    workspace_id: z.string(),
    workspace_name: z.string(),
    /** `active`, `suspended`, `limit_reached` or `deleted` from the reference service. */
    workspace_status: z.string(),
    plan: z.string(),
    billing_cycle: z.string(),
    api_key_prefix: z.string(),
    memory_count: z.number(),
    server_time: z.string(),
    version: z.string(),
  })
  .loose();

export type Temporal = z.infer<typeof TemporalSchema>;
export type StoreResponse = z.infer<typeof StoreResponseSchema>;
export type RetrievedMemory = z.infer<typeof RetrievedMemorySchema>;
export type RetrieveResponse = z.infer<typeof RetrieveResponseSchema>;
export type HealthSignals = z.infer<typeof HealthSignalsSchema>;
export type Recommendation = z.infer<typeof RecommendationSchema>;
export type HealthResponse = z.infer<typeof HealthResponseSchema>;
export type StatusResponse = z.infer<typeof StatusResponseSchema>;
