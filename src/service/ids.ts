// API keys. Randomness is passed in (defaults to crypto) so tests can pin it. Workspace, key and memory ids are
// integers the store assigns (./store/types.ts).
import { createHash, randomBytes as cryptoRandomBytes, timingSafeEqual } from "node:crypto";
import { API_KEY_PREFIX, API_KEY_PUBLIC_PREFIX_CHARS, API_KEY_RANDOM_CHARS } from "../contract/limits.js";
import { shannonEntropy } from "./pipeline/pii/context.js";

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

/** An imported key's minimum length: a new key is 39 characters; 24 leaves room for older formats. */
export const IMPORTED_KEY_MIN_CHARS = 24;
/**
 * An imported key's minimum estimated strength: 96 bits is beyond any online guessing (even at the rate limit's 200
 * requests a second for centuries) and below what a new key carries (32 base62 characters, about 190 bits).
 */
export const IMPORTED_KEY_MIN_BITS = 96;

/** A vendor-style leading label (`svc_ws_`, `sk_live_`): public by design, so it adds no strength. */
const LABEL = /^(?:[A-Za-z]{1,12}[_-]){1,3}/;

/**
 * Why a key may not be imported, or null when it may. Strength is estimated from the key's own characters after
 * its label: their count times their Shannon entropy, so repeats ("aaaa…") and short alphabets count for little,
 * and keys that mostly step through neighbouring characters ("abcdef…", "123456…") are refused outright.
 */
export function importedKeyProblem(apiKey: string): string | null {
  if (!/^[!-~]+$/.test(apiKey)) return "an API key is one word of printable ASCII characters";
  const n = apiKey.length;
  if (n < IMPORTED_KEY_MIN_CHARS) {
    return `the key is ${n} character${n === 1 ? "" : "s"} long; an imported key needs at least ${IMPORTED_KEY_MIN_CHARS} (\`admin key create\` makes a strong one)`;
  }
  const body = apiKey.replace(LABEL, "");
  let steps = 0;
  for (let i = 1; i < body.length; i++) if (Math.abs(body.charCodeAt(i) - body.charCodeAt(i - 1)) <= 1) steps++;
  const advice = "use a random one, as `admin key create` makes";
  if (steps * 2 > body.length - 1) return `the key is too predictable (it mostly steps to a neighbouring character): ${advice}`;
  const bits = Math.floor(body.length * shannonEntropy(body));
  if (bits < IMPORTED_KEY_MIN_BITS) {
    return `the key is too predictable (about ${bits} bits; an imported key needs ${IMPORTED_KEY_MIN_BITS}): ${advice}`;
  }
  return null;
}

/** What the store is given for a key created at `at`: its hash and public prefix, never the key itself. */
export function keyRecordOf(apiKey: string, at: number): { key_hash: string; prefix: string; created_at: number } {
  return { key_hash: hashApiKey(apiKey), prefix: keyPrefix(apiKey), created_at: at };
}
