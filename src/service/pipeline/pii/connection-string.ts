// Credentials embedded in URLs and headers: scheme://user:password@host, HTTP Basic auth.
import { isPlaceholder } from "./context.js";

const URL_WITH_PASSWORD = /\b[a-z][a-z0-9+.-]{1,30}:\/\/([^\s:/@?#]{0,100}):([^\s/@?#]{1,200})@[^\s@]/gi;
const BASIC_AUTH = /\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g;

/** True when a URL or an Authorization header carries a password. */
export function containsCredentialUrl(text: string): boolean {
  if (text.includes("://")) {
    for (const m of text.matchAll(URL_WITH_PASSWORD)) {
      const password = decodeURIComponentSafe(m[2]);
      if (!isPlaceholder(password) && !/^\$\{?\w+\}?$/.test(password)) return true;
    }
  }
  for (const m of text.matchAll(BASIC_AUTH)) {
    const decoded = Buffer.from(m[1], "base64").toString("utf8");
    if (/^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded)) return true;
  }
  return false;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
