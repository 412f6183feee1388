// PII screening: the first stage of the write pipeline. Pure and synchronous; reports kinds, never values.
import type { PiiType, PiiVerdict } from "./types.js";
import { containsApiKey } from "./api-key.js";
import { containsCredentialUrl } from "./connection-string.js";
import { containsCreditCard } from "./credit-card.js";
import { decodedViews } from "./encoded.js";
import { containsNationalId } from "./national-id.js";
import { containsPassword } from "./password.js";
import { normalizeForScreening } from "./normalize.js";
import { containsPrivateKey } from "./private-key.js";

type Detector = { type: PiiType; found: (text: string) => boolean };

/** In the order kinds are reported. */
const DETECTORS: readonly Detector[] = [
  { type: "credit_card", found: containsCreditCard },
  { type: "national_id", found: containsNationalId },
  { type: "password", found: (text) => containsPassword(text) || containsCredentialUrl(text) },
  { type: "api_key", found: containsApiKey },
  { type: "private_key", found: containsPrivateKey },
];

/**
 * Screens memory text for payment cards, identity numbers, passwords, API keys and private keys, in whatever digit
 * forms, separators and invisible characters they are written (every detector reads the normalized text), and
 * percent-encoded or in base64.
 */
export function screenPii(text: string): PiiVerdict {
  const normalized = normalizeForScreening(text);
  // What percent-escapes and base64 tokens decode to is read too, normalized the same way (one level, never deeper).
  const views = [normalized, ...decodedViews(normalized).map(normalizeForScreening)];
  const types = DETECTORS.filter((d) => views.some((view) => d.found(view))).map((d) => d.type);
  return types.length === 0 ? { ok: true } : { ok: false, types };
}
