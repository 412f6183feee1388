// IBANs are bank account numbers printed on every invoice: not a screened kind, but their digit groups must not
// be mistaken for card or identity numbers, so numeric detectors scan with valid IBANs blanked out.
import { ibanValid } from "./checksums.js";

const IBAN_CANDIDATE = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g;

/** The text with every valid IBAN replaced by spaces of the same length (offsets are preserved). */
export function maskIbans(text: string): string {
  if (!/[A-Z]{2}\d{2}/.test(text)) return text;
  return text.replace(IBAN_CANDIDATE, (m) => (ibanValid(m.replace(/ /g, "")) ? " ".repeat(m.length) : m));
}
