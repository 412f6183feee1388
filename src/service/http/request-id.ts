// Request ids: `req_` + a ULID (48-bit time, 80-bit random, Crockford base32), so ids sort by arrival.
import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export interface RequestIdSource {
  now: () => number;
  random: (bytes: number) => Uint8Array;
}

const systemSource: RequestIdSource = { now: () => Date.now(), random: (n) => randomBytes(n) };

/** A 26-character ULID: 10 characters of millisecond time, then 16 of randomness. */
export function ulid(source: RequestIdSource = systemSource): string {
  let time = Math.max(0, Math.floor(source.now()));
  let timePart = "";
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  const bytes = source.random(10);
  // 80 bits -> 16 characters of 5 bits each.
  let randomPart = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      randomPart += CROCKFORD[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return timePart + randomPart;
}

export function newRequestId(source: RequestIdSource = systemSource): string {
  return `req_${ulid(source)}`;
}
