// Stage 1: PII screening, before anything is embedded, stored or logged. The error names the kinds, never the text.
import { ServiceError } from "../types.js";
import type { PiiVerdict } from "./pii-types.js";
import type { Draft } from "./draft.js";

export function screen(draft: Draft, screenPii: (text: string) => PiiVerdict): Draft {
  const verdict = screenPii(draft.text);
  if (verdict.ok) return draft;
  throw new ServiceError(
    "pii_detected",
    `The memory was not stored: it contains ${verdict.types.join(", ")}. Remove the sensitive value and store it again.`,
    { pii_types: verdict.types },
  );
}
