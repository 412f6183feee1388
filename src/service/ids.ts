// API keys. Randomness is passed in (defaults to crypto) so tests can pin it. Workspace, key and memory ids are
// integers the store assigns (./store/types.ts).
import { createHash, randomBytes as cryptoRandomBytes, timingSafeEqual } from "node:crypto";
import { API_KEY_PREFIX, API_KEY_PUBLIC_PREFIX_CHARS, API_KEY_RANDOM_CHARS } from "../contract/limits.js";

export type RandomBytes = (n: number) => Uint8Array;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 characters: bytes >= 248 (= 4 * 62) are rejected so no character is favoured. */
export function base62(length: number, random: RandomBytes = cryptoRandomBytes): string {
  let out = "";
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new workspace key: `svc_ws_` + 32 base62 characters. */
export function newApiKey(random?: RandomBytes): string {
  return API_KEY_PREFIX + base62(API_KEY_RANDOM_CHARS, random);
}

/** What the store keeps of a key: SHA-256, lowercase hex. */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

/** Whether two key hashes are equal, compared in constant time (their length is public: always 64). */
export function sameKeyHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The share of a key its public prefix may show at most: a prefix never gives away more than a third of a key. */
const PREFIX_MAX_SHARE = 1 / 3;

/** The key's public prefix: its first 11 characters, and never more than a third of it (never the whole key). */
export function keyPrefix(apiKey: string): string {
  return apiKey.slice(0, Math.min(API_KEY_PUBLIC_PREFIX_CHARS, Math.floor(apiKey.length * PREFIX_MAX_SHARE)));
}

// An imported key must pass the rule `brain-mcp config set-key` applies too: one implementation, in src/contract.
export { IMPORTED_KEY_MIN_BITS, IMPORTED_KEY_MIN_CHARS, apiKeyProblem as importedKeyProblem } from "../contract/input-policy.js";

/** What the store is given for a key created at `at`: its hash and public prefix, never the key itself. */
export function keyRecordOf(apiKey: string, at: number): { key_hash: string; prefix: string; created_at: number } {
  return { key_hash: hashApiKey(apiKey), prefix: keyPrefix(apiKey), created_at: at };
}
