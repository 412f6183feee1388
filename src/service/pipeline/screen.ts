// Stage 1: PII screening, before anything is embedded, stored or logged. The error names the kinds, never the text.
// The memory is its text and its meta: both are screened, each on its own.
import { ServiceError } from "../types.js";
import type { PiiType, PiiVerdict } from "./pii/types.js";
import type { Draft } from "./draft.js";

/**
 * meta as lines to screen: every key at every depth on its own (whatever its value: true, null, {}, []), and each
 * leaf as `key: value`, so a labelled value (`{"password": "…"}`) is screened as in text.
 */
function metaAsText(value: unknown, key = ""): string[] {
  if (typeof value === "string" || typeof value === "number") return [key ? `${key}: ${value}` : String(value)];
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((item) => metaAsText(item, key));
  return Object.entries(value).flatMap(([name, child]) => [name, ...metaAsText(child, name)]);
}

/** The one screen of a memory, its text and every leaf of its meta: the API's store and `admin import` both call it. */
export function screenMemory(text: string, meta: unknown, screenPii: (text: string) => PiiVerdict): PiiVerdict {
  const types = new Set<PiiType>();
  for (const part of [text, ...metaAsText(meta)]) {
    const verdict = screenPii(part);
    if (!verdict.ok) verdict.types.forEach((type) => types.add(type));
  }
  return types.size === 0 ? { ok: true } : { ok: false, types: [...types] };
}

export function screen(draft: Draft, screenPii: (text: string) => PiiVerdict): Draft {
  const verdict = screenMemory(draft.text, draft.meta, screenPii);
  if (verdict.ok) return draft;
  throw new ServiceError(
    "pii_detected",
    `The memory was not stored: it contains ${verdict.types.join(", ")}. Remove the sensitive value and store it again.`,
    { pii_types: verdict.types },
  );
}
