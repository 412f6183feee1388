// Secrets written in an encoding a person or a program undoes without thinking: percent-encoding (URLs, form bodies)
// and base64 (config blobs, headers). The screen also reads what each decodes to; Node's own decoders do the work.
// Not decoded (stated in the README): spelled-out digits, hex, rot13, nested or compressed encodings.

const PERCENT = /%[0-9A-Fa-f]{2}/;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
/** A form body or query string, where `+` is a space (`q=card+4111+1111`). */
const FORM_LIKE = /[?&=][^\s]*\+/;
/** A base64 token long enough to hold a card (16 digits are 24 characters encoded), padded or not. */
const BASE64_TOKEN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/]{16,4096}={0,2}(?![A-Za-z0-9+/=_-])/g;
/** What decoded text must look like to be read: printable ASCII with ordinary whitespace, holding a digit or a ':'. */
const PRINTABLE = /^[\x20-\x7e\t\r\n]+$/;

/** Each percent-escape run decoded as UTF-8 (a run that is not UTF-8 stays as it was). */
function percentDecoded(text: string): string {
  const decoded = text.replace(PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
  return FORM_LIKE.test(text) ? decoded.replace(/\+/g, " ") : decoded;
}

/** The printable texts base64 tokens decode to (random ids and hashes decode to bytes, and are skipped). */
function base64Decoded(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(BASE64_TOKEN)) {
    const token = m[0];
    if (token.replace(/=+$/, "").length % 4 === 1) continue; // not a whole number of bytes
    if (!/\d/.test(token) && !/[A-Z].*[a-z]|[a-z].*[A-Z]/.test(token)) continue; // a word or a number, not base64
    const decoded = Buffer.from(token, "base64").toString("latin1");
    if (decoded.length >= 12 && PRINTABLE.test(decoded) && /[\d:=]/.test(decoded)) out.push(decoded);
  }
  return out;
}

/** Texts to screen besides the text itself: what its percent-escapes and base64 tokens decode to (one level). */
export function decodedViews(text: string): string[] {
  const views: string[] = [];
  if (PERCENT.test(text) || (FORM_LIKE.test(text) && /\d\+\d/.test(text))) {
    const decoded = percentDecoded(text);
    if (decoded !== text) views.push(decoded);
  }
  // One view for all tokens (a blank line apart, which no detector reads across), so many tokens cost one pass.
  const tokens = text.length >= 16 ? base64Decoded(text) : [];
  if (tokens.length > 0) views.push(tokens.join("\n\n"));
  return views;
}
