// Lenient parsers for the four responses. Each REQUIRES exactly the fields SPEC.md's tables list and nothing more:
// the reference service's extras (src/contract/wire.ts) are typed as optional, every unknown field is kept, and the
// enumerations (workspace_status, dedup.action, temporal.type) are read as plain strings, so any server that answers
// as the specification says works, and one that adds a field or a value never breaks a client.
import { z } from "zod";

/** Identifiers are integers on the wire (memory_id, workspace_id, api_key_id, existing_id, id). */
const Id = z.number().int();

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
    memory_id: Id,
    workspace_id: Id,
    dedup: z
      .object({
        /** `stored_new` or `merged` from the reference service. */
        action: z.string(),
        existing_id: Id.nullable(),
      })
      .loose(),
    importance: z.number().int(),
    categories: z.array(z.string()),
    temporal: TemporalSchema,
  })
  .loose();

/** A retrieved memory's meta: the specification promises only `temporal` with its `type`. */
export const RetrievedMetaSchema = z
  .object({
    temporal: z.object({ type: z.string(), valid_until: z.string().nullable().optional() }).loose(),
    categories: z.array(z.string()).optional(),
  })
  .loose();

export const RetrievedMemorySchema = z
  .object({
    id: Id,
    text: z.string(),
    score: z.number(),
    similarity: z.number(),
    importance: z.number().int(),
    meta: RetrievedMetaSchema,
    // The reference service's extras: shown when present, never required.
    expired: z.boolean().optional(),
    created_at: z.string().optional(),
    last_accessed_at: z.string().nullable().optional(),
    access_count: z.number().optional(),
  })
  .loose();

export const RetrieveResponseSchema = z
  .object({
    memories: z.array(RetrievedMemorySchema),
    count: z.number().optional(),
  })
  .loose();

/** The specification names total_memories; the other signals' names are the reference service's. */
export const HealthSignalsSchema = z
  .object({
    total_memories: z.number().int(),
    stale_memories: z.number().optional(),
    duplicate_memories: z.number().optional(),
    overlong_memories: z.number().optional(),
    never_retrieved_memories: z.number().optional(),
    open_recommendations: z.number().optional(),
  })
  .loose();

export const RecommendationSchema = z
  .object({
    code: z.string().optional(),
    message: z.string().optional(),
    count: z.number().optional(),
  })
  .loose();

export const HealthResponseSchema = z
  .object({
    quality_score: z.number(),
    signals: HealthSignalsSchema,
    recommendations: z.array(RecommendationSchema).optional(),
    generated_at: z.string().optional(),
  })
  .loose();

export const StatusResponseSchema = z
  .object({
    workspace_id: Id,
    workspace_name: z.string(),
    /** `active`, `suspended`, `limit_reached` or `deleted` from the reference service. */
    workspace_status: z.string(),
    plan_name: z.string(),
    billing_cycle: z.string(),
    api_key_id: Id,
    api_key_prefix: z.string(),
    healthy: z.boolean(),
    server_time: z.string(),
    memory_count: z.number().optional(),
    version: z.string().optional(),
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
