// Rules every way in applies to what a person or an agent gives: the REST API, the CLI, the MCP adapter and `admin`.
// One module, so the paths cannot drift (the adapter and the CLI may not import from src/service).

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A key's minimum length (imported or saved): a new key is 39 characters; 24 leaves room for older formats. */
export const IMPORTED_KEY_MIN_CHARS = 24;
/**
 * A key's minimum estimated strength: 96 bits is beyond any online guessing (even at the rate limit's 200
 * requests a second for centuries) and below what a new key carries (32 base62 characters, about 190 bits).
 */
export const IMPORTED_KEY_MIN_BITS = 96;

/** A vendor-style leading label (`svc_ws_`, `sk_live_`): public by design, so it adds no strength. */
const KEY_LABEL = /^(?:[A-Za-z]{1,12}[_-]){1,3}/;

/**
 * Why a string cannot be an API key, or null when it can: `admin key import` and `brain-mcp config set-key` both
 * ask. Strength is estimated from the key's own characters after its label: their count times their Shannon
 * entropy, so repeats ("aaaa…") and short alphabets count for little, and keys that mostly step through
 * neighbouring characters ("abcdef…", "123456…") are refused outright. The answer never quotes the key.
 */
export function apiKeyProblem(apiKey: string, noun = "an imported key"): string | null {
  if (!/^[!-~]+$/.test(apiKey)) return "an API key is one word of printable ASCII characters";
  const n = apiKey.length;
  if (n < IMPORTED_KEY_MIN_CHARS) {
    return `the key is ${n} character${n === 1 ? "" : "s"} long; ${noun} needs at least ${IMPORTED_KEY_MIN_CHARS} (\`admin key create\` makes a strong one)`;
  }
  const body = apiKey.replace(KEY_LABEL, "");
  let steps = 0;
  for (let i = 1; i < body.length; i++) if (Math.abs(body.charCodeAt(i) - body.charCodeAt(i - 1)) <= 1) steps++;
  const advice = "use a random one, as `admin key create` makes";
  if (steps * 2 > body.length - 1) return `the key is too predictable (it mostly steps to a neighbouring character): ${advice}`;
  const bits = Math.floor(body.length * shannonEntropy(body));
  if (bits < IMPORTED_KEY_MIN_BITS) {
    return `the key is too predictable (about ${bits} bits; ${noun} needs ${IMPORTED_KEY_MIN_BITS}): ${advice}`;
  }
  return null;
}

/** The key JavaScript objects reserve: JSON.parse keeps it, but an object built from it drops it or changes type. */
export const RESERVED_KEY = "__proto__";

/**
 * Where `__proto__` is used as a key in a parsed JSON value (`meta.a.__proto__`, or `__proto__` at the top), or
 * null. Every path refuses such input whole rather than store the rest with that key silently dropped.
 */
export function reservedKeyPath(value: unknown, path = ""): string | null {
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = reservedKeyPath(item, `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (Object.hasOwn(value, RESERVED_KEY)) return path ? `${path}.${RESERVED_KEY}` : RESERVED_KEY;
  for (const [name, child] of Object.entries(value)) {
    const found = reservedKeyPath(child, path ? `${path}.${name}` : name);
    if (found !== null) return found;
  }
  return null;
}

/** The sentence the CLI and the adapter give for a reserved key, as the REST API's 422 does for `meta`. */
export function reservedKeyMessage(path: string): string {
  return `\`${path}\` uses the key \`${RESERVED_KEY}\`, which JavaScript objects reserve; rename the key`;
}
