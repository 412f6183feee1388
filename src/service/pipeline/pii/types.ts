// The contract of PII screening (the first stage of the write pipeline). Implemented in ./index.ts.

/** Kinds reported in a 422 `pii_detected` answer's `pii_types`. Never the values. */
export type PiiType = "credit_card" | "national_id" | "password" | "api_key" | "private_key";

export type PiiVerdict = { ok: true } | { ok: false; types: PiiType[] };
