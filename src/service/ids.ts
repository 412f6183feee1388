// Identifiers and API keys. Randomness is passed in (defaults to crypto) so tests can pin it.
import { createHash, randomBytes as cryptoRandomBytes } from "node:crypto";
import { API_KEY_PREFIX, API_KEY_PUBLIC_PREFIX_CHARS, API_KEY_RANDOM_CHARS } from "../contract/limits.js";

export type RandomBytes = (n: number) => Uint8Array;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A ULID: 48-bit millisecond time then 80 random bits, Crockford base32; sorts by creation time. */
export function ulid(nowMs: number, random: RandomBytes = cryptoRandomBytes): string {
  let time = "";
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = random(16);
  let rand = "";
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! % 32];
  return time + rand;
}

export const newMemoryId = (nowMs: number, random?: RandomBytes) => `mem_${ulid(nowMs, random)}`;
export const newWorkspaceId = (nowMs: number, random?: RandomBytes) => `ws_${ulid(nowMs, random)}`;
export const newKeyId = (nowMs: number, random?: RandomBytes) => `key_${ulid(nowMs, random)}`;

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

export function keyPrefix(apiKey: string): string {
  return apiKey.slice(0, API_KEY_PUBLIC_PREFIX_CHARS);
}
