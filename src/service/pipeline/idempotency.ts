// Idempotency-Key: the first response to a key is kept 24 h per workspace; a repeat with the same body gets it
// back (and records nothing), a repeat with a different body is refused.
import { createHash } from "node:crypto";
import { ServiceError, type StoreInput } from "../types.js";
import type { IdempotencyRecord } from "../store/types.js";
import type { StoreResponse } from "../../contract/wire.js";

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same body. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function requestHash(input: StoreInput): string {
  return createHash("sha256")
    .update(canonical({ text: input.text, meta: input.meta }))
    .digest("hex");
}

/** The first response when this is a replay; throws when the key was used for another body; null otherwise. */
export function replayOf(record: IdempotencyRecord | null, hash: string): StoreResponse | null {
  if (!record) return null;
  if (record.request_hash !== hash) {
    throw new ServiceError(
      "idempotency_key_reused",
      "This Idempotency-Key was already used for a different request body in the last 24 hours. Use a new key for a new memory.",
    );
  }
  // Stored by this version, or rewritten to its shape when a 0.1.0 store was migrated.
  return record.response as StoreResponse;
}
