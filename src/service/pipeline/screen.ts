// Stage 1: PII screening, before anything is embedded, stored or logged. The error names the kinds, never the text.
// The memory is its text and its meta: both are screened, each on its own.
import { ServiceError } from "../types.js";
import type { PiiType, PiiVerdict } from "./pii-types.js";
import type { Draft } from "./draft.js";

/** meta's leaves as `key: value` lines, so a labelled value (`{"password": "…"}`) is screened as in text. */
function metaAsText(value: unknown, key = ""): string[] {
  if (typeof value === "string" || typeof value === "number") return [key ? `${key}: ${value}` : String(value)];
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((item) => metaAsText(item, key));
  return Object.entries(value).flatMap(([name, child]) => metaAsText(child, name));
}

export function screen(draft: Draft, screenPii: (text: string) => PiiVerdict): Draft {
  const types = new Set<PiiType>();
  for (const text of [draft.text, ...metaAsText(draft.meta)]) {
    const verdict = screenPii(text);
    if (!verdict.ok) verdict.types.forEach((type) => types.add(type));
  }
  if (types.size === 0) return draft;
  throw new ServiceError(
    "pii_detected",
    `The memory was not stored: it contains ${[...types].join(", ")}. Remove the sensitive value and store it again.`,
    { pii_types: [...types] },
  );
}
