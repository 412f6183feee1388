// API keys and tokens: vendor formats recognised by their documented prefixes, JWTs by a header that decodes
// to JSON with "alg", and any high-entropy value assigned to a key/secret/token name.
import { API_KEY_PREFIX, API_KEY_RANDOM_CHARS } from "../../../contract/limits.js";
import { isPlaceholder, looksRandom } from "./context.js";
import { isCommentary } from "./words.js";

const END = "(?![A-Za-z0-9_-])";
// Token starts only: a prefix inside a longer token would rescan that token once per occurrence.
const START = "(?<![A-Za-z0-9_-])";

/** Vendor token formats; each is specific enough to count without a label. */
const VENDOR_TOKENS: readonly RegExp[] = [
  /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Z0-9])/, // AWS access key id
  new RegExp(`${START}gh[pousr]_[A-Za-z0-9]{36,}${END}`), // GitHub tokens
  new RegExp(`${START}github_pat_[A-Za-z0-9_]{40,}${END}`), // GitHub fine-grained PAT
  new RegExp(`${START}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}${END}`), // Stripe secret / restricted keys
  new RegExp(`${START}whsec_[A-Za-z0-9+/=]{20,}`), // Stripe webhook signing secret
  new RegExp(`${START}sk-ant-(?:api|admin|sid)\\d{2}-[A-Za-z0-9_-]{20,}`), // Anthropic
  new RegExp(`${START}xox[baprse]-(?:\\d+-)?[A-Za-z0-9-]{10,}`), // Slack bot/user/app tokens
  new RegExp(`${START}xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]{20,}`), // Slack app-level token
  /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/T[A-Z0-9]{6,}\/[A-Z0-9]{6,}\/[A-Za-z0-9]{16,}/, // Slack webhook
  /\bdiscord(?:app)?\.com\/api\/webhooks\/\d{15,}\/[A-Za-z0-9_-]{30,}/, // Discord webhook
  new RegExp(`${START}AIza[0-9A-Za-z_-]{35}${END}`), // Google API key
  new RegExp(`${START}GOCSPX-[A-Za-z0-9_-]{24,}${END}`), // Google OAuth client secret
  new RegExp(`${START}ya29\\.[A-Za-z0-9_-]{30,}`), // Google OAuth access token
  new RegExp(`${START}glpat-[A-Za-z0-9_-]{20,}${END}`), // GitLab personal access token
  new RegExp(`${START}npm_[A-Za-z0-9]{36}${END}`), // npm token
  new RegExp(`${START}pypi-AgE[A-Za-z0-9_-]{50,}`), // PyPI token
  new RegExp(`${START}hf_[A-Za-z0-9]{30,}${END}`), // Hugging Face
  /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/, // SendGrid
  new RegExp(`${START}key-[0-9a-f]{32}${END}`), // Mailgun
  new RegExp(`${START}(?:AC|SK)[0-9a-f]{32}${END}`), // Twilio account SID / API key SID
  new RegExp(`${START}dop_v1_[a-f0-9]{64}${END}`), // DigitalOcean
  new RegExp(`${START}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${END}`), // Shopify
  new RegExp(`${START}sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}${END}`), // Square
  new RegExp(`${START}dapi[a-f0-9]{32}${END}`), // Databricks
  new RegExp(`${START}lin_api_[A-Za-z0-9]{32,}${END}`), // Linear
  new RegExp(`${START}(?:ntn_|secret_)[A-Za-z0-9]{40,}${END}`), // Notion
  new RegExp(`${START}hv[sbr]\\.[A-Za-z0-9_-]{24,}`), // HashiCorp Vault tokens
  /(?<![\w:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])/, // Telegram bot token
  /\bAccountKey=[A-Za-z0-9+/]{40,}={0,2}/, // Azure storage connection string
  /[?&]sig=[A-Za-z0-9%+/]{30,}/, // Azure SAS signature
  new RegExp(`${START}${API_KEY_PREFIX}[A-Za-z0-9]{${API_KEY_RANDOM_CHARS},}${END}`), // this service's workspace keys
];

// Every vendor format above contains one of these literals: one cheap pass decides whether to run them all.
const VENDOR_PREFIX = new RegExp(
  [
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "gh[pousr]_",
    "github_pat_",
    "_live_",
    "_test_",
    "whsec_",
    "sk-ant-",
    "xox",
    "xapp-",
    "hooks\\.slack\\.com",
    "discord",
    "AIza",
    "GOCSPX-",
    "ya29\\.",
    "glpat-",
    "npm_",
    "pypi-",
    "hf_",
    "SG\\.",
    "key-",
    "AC[0-9a-f]",
    "SK[0-9a-f]",
    "dop_v1_",
    "shp",
    "sq0",
    "dapi",
    "lin_api_",
    "ntn_",
    "secret_",
    "hv[sbr]\\.",
    ":AA",
    "AccountKey=",
    "sig=",
    API_KEY_PREFIX,
  ].join("|"),
);

// OpenAI-style keys ("sk-", "sk-proj-"): the prefix is common, so the body must also look random.
const OPENAI = /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?([A-Za-z0-9_-]{20,})/g;

const JWT = /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,})\.(eyJ[A-Za-z0-9_-]{8,}|[A-Za-z0-9_-]{16,})\.([A-Za-z0-9_-]*)/g;

// A secret-bearing name: api key, access token, client secret, auth token, STRIPE_KEY, "the OpenAI key"…
const SECRET_NAME =
  "(?:[A-Za-z0-9]{1,24}[_.-]){0,8}(?:api[ _.-]?keys?|apikeys?|access[ _.-]?keys?|secret[ _.-]?(?:access[ _.-]?)?keys?|client[ _.-]?secrets?|app[ _.-]?secrets?|consumer[ _.-]?secrets?|secrets?|(?:access|auth|refresh|bearer|api|bot|session|id|oauth|personal[ _.-]access|service|deploy|github|slack|webhook)?[ _.-]?tokens?|auth[ _.-]?keys?|signing[ _.-]?keys?|encryption[ _.-]?keys?|master[ _.-]?keys?|license[ _.-]?keys?|private[ _.-]?keys?|priv[ _.-]?key|(?:stripe|openai|anthropic|aws|github|slack|google|gcp|azure|twilio|sendgrid|mailgun|datadog|sentry|algolia|mapbox|pinecone|cohere|mistral|groq|[a-z]{3,12})[ _.-]keys?)(?:[_.-][A-Za-z0-9]{1,24}){0,3}";
const ASSIGNED_SECRET = new RegExp(
  `(?<![\\p{L}\\p{N}_.-])(${SECRET_NAME})["']?(?:\\s*\\([^()\\n]{1,30}\\))?(?:\\s+(?:for|of|to|on)(?:\\s+[\\p{L}\\p{N}_.@/-]{1,30}){1,3}?)?(\\s*(?::=|=>|->|[:=])\\s*|\\s+(?:is|was|=)\\s+(?:now\\s+)?:?\\s*|\\s+)["'\`]?([^\\s"'\`]{8,512})`,
  "giu",
);
// Names that look like secrets but hold public or non-secret values.
const NOT_SECRET_NAME =
  /(?:public|publishable|pub[_.-]?key|key[_.-]?id|token[_.-]?(?:count|limit|usage|type|url|endpoint|ttl|expir\w*|length)|max[_.-]?tokens?|tokens?[_.-]?(?:in|out)|idempotency|csrf|xsrf|nonce|tokenizer|primary|foreign|sort|partition|cache|keyboard|monkey|page|pagination|cursor|continuation|next|sync|trace|span|request|correlation|etag|commit|checksum|hash|turkey|hockey|whiskey|donkey|jockey)/i;

/** Does the header segment of a candidate JWT decode to a JSON object with an "alg"? */
function isJwtHeader(segment: string): boolean {
  try {
    const json = Buffer.from(segment, "base64url").toString("utf8");
    const header: unknown = JSON.parse(json);
    return typeof header === "object" && header !== null && "alg" in header;
  } catch {
    return false;
  }
}

/** A line break (with the spaces around it) inside a base64url run: how a long token is wrapped in a terminal. */
const WRAPPED = /(?<=[A-Za-z0-9_.-])[ \t]*\r?\n[ \t]*(?=[A-Za-z0-9_.-])/g;

function containsJwt(text: string): boolean {
  if (!text.includes("eyJ")) return false;
  for (const m of text.matchAll(JWT)) if (isJwtHeader(m[1])) return true;
  // Wrapped across lines: rejoined, it still needs a header that decodes to JSON with "alg", so prose is not joined.
  if (!text.includes("\n")) return false;
  for (const m of text.replace(WRAPPED, "").matchAll(JWT)) if (isJwtHeader(m[1])) return true;
  return false;
}

function containsOpenAiKey(text: string): boolean {
  if (!text.includes("sk-")) return false;
  for (const m of text.matchAll(OPENAI)) if (looksRandom(m[1]) && /\d/.test(m[1])) return true;
  return false;
}

// Values that are public by design even when a key name holds them (publishable keys, SSH/PEM public keys).
const PUBLIC_VALUE =
  /^(?:pk_(?:live|test)_|AAAA[A-Z0-9][A-Za-z0-9]{2}Nza|ssh-(?:rsa|ed25519|dss)|ecdsa-sha2|MFkwEwYHKoZIzj0|MIIBIjANBgkqhkiG9w0BAQEFAAOC)/;

/** Is an assigned value a secret? With '='/':' a mixed value of 12+ chars is; after "is"/bare it must look random. */
function isAssignedSecret(value: string, connector: string): boolean {
  const v = value.replace(/[.,;:!?)\]}>]+$/, "");
  if (isPlaceholder(v) || isCommentary(v) || PUBLIC_VALUE.test(v)) return false;
  if (/^v?\d+(?:\.\d+)*$/.test(v) || /^\d+$/.test(v)) return false;
  if (/^(?:https?|ftp):\/\//.test(v) || /^[~.]?\//.test(v)) return false;
  if (looksRandom(v)) return true;
  const strong = /[:=>]/.test(connector);
  return strong && v.length >= 12 && /[A-Za-z]/.test(v) && /\d/.test(v) && !/^[a-z]+(?:[-_][a-z0-9]+)+$/.test(v);
}

/** A secret value assigned to a key/secret/token name; names with "priv" hold private keys, the rest API keys. */
export function containsAssignedSecret(text: string, kind: "api_key" | "private_key"): boolean {
  if (!/key|token|secret/i.test(text)) return false; // every secret name contains one of these
  for (const m of text.matchAll(ASSIGNED_SECRET)) {
    const [, name, connector, value] = m;
    const qualifier = /[\p{L}\p{N}_-]*\s*$/u.exec(text.slice(Math.max(0, (m.index ?? 0) - 24), m.index))?.[0] ?? "";
    if (NOT_SECRET_NAME.test(qualifier + name) || (/priv/i.test(name) ? "private_key" : "api_key") !== kind) continue;
    if (connector.trim() === "" && !looksRandom(value)) continue; // "token abc…" without ':' must be random
    if (isAssignedSecret(value, connector)) return true;
  }
  return false;
}

/** True when the text holds an API key, access token, signing secret or webhook URL. */
export function containsApiKey(text: string): boolean {
  if (VENDOR_PREFIX.test(text) && VENDOR_TOKENS.some((re) => re.test(text))) return true;
  return containsOpenAiKey(text) || containsJwt(text) || containsAssignedSecret(text, "api_key");
}
