// What surrounds a candidate: labels before it, and the shape of an assigned value.
import { shannonEntropy } from "../../../contract/input-policy.js";

export { shannonEntropy };

/** Lower-cased text in the `chars` before `index` (the label zone of a candidate). */
export function before(text: string, index: number, chars: number): string {
  return text.slice(Math.max(0, index - chars), index).toLowerCase();
}

/** Lower-cased text in the `chars` after `end`. */
export function after(text: string, end: number, chars: number): string {
  return text.slice(end, end + chars).toLowerCase();
}

/** A label ending just before a candidate that names it as something other than a secret ("Order #…"). */
export const NON_SECRET_ID_LABEL = new RegExp(
  "\\b(?:order|po|purchase order|lot|batch|item|asset|product|article|voucher|coupon|promo|tracking|track|shipment|shipping|parcel|package|consignment|waybill|awb|invoice|inv|reference|ref|confirmation|booking|reservation|ticket|transaction|txn|receipt|serial|imei|sku|part|model|barcode|ean|upc|isbn|customer|member|membership|loyalty|case|claim|policy|ups|fedex|usps|dhl|build|version|release|phone|tel|telephone|mobile|cell|fax|account|employee|student|patient)" +
    "(?:\\s*(?:number|numbers|no\\.?|num|nr\\.?|id|#|code|ref))?\\s*(?:is|was|=|:|#|-|–)?\\s*#?\\s*$",
);

// "<noun> number 4111…" names the number as that noun's id (PO, lot, batch, asset…) unless the noun is a card
// or identity word, or not a noun at all ("my number", "the number").
const NAMED_NUMBER = /(?:^|[^\p{L}])(\p{L}{2,20})\.?\s*(?:numbers?|no\.?|nr\.?|num|#|id|code)\s*(?:is|was|[:#=])?\s*#?\s*$/iu;
const NOT_AN_ID_NOUN = new Set(
  (
    "card cards credit debit visa mastercard amex discover jcb diners unionpay maestro cc ccn pan cvv " +
    "social security insurance tax taxpayer identity identification id national passport license licence personal " +
    "citizen resident ssn sin nin ni nino nhs bsn dni nie nif cpf aadhaar aadhar pesel tfn uid fiscal " +
    "my your his her our their its the a an this that same new old full whole entire following which what whose"
  ).split(" "),
);

/** The same in Chinese, Japanese and Korean (order, waybill, invoice, transaction, phone, member numbers). */
const CJK_OTHER_ID_LABEL =
  /(?:订单|訂單|单号|單號|快递|快遞|运单|運單|物流|发票|發票|流水号|流水號|交易号|交易號|注文|伝票|追跡|請求書|주문|송장|운송장|전화|手机|手機|电话|電話|携帯|会员|會員|회원)[^\p{N}\n]{0,12}$/u;

/** True when the text just before a number names it as some other kind of id ("PO number", "lot #"). */
export function namesOtherNumber(lead: string): boolean {
  if (NON_SECRET_ID_LABEL.test(lead) || CJK_OTHER_ID_LABEL.test(lead)) return true;
  const m = NAMED_NUMBER.exec(lead);
  return m !== null && !NOT_AN_ID_NOUN.has(m[1].toLowerCase());
}

/** A phone number's lead-in: a phone word or an international prefix just before the digits. */
export const PHONE_LEAD =
  /(?:\b(?:phone|tel|telephone|mobile|cell|call|ring|text|sms|whatsapp|fax|tel[eé]fono|m[oó]vil|handy|portable|numéro)\b[^0-9\n]{0,20}|\+\d{1,3}[ .-]?|\(\d{1,4}\)[ .-]?)$/;

/** How many of lower, upper, digit, symbol a value mixes. */
export function characterClasses(value: string): number {
  let classes = 0;
  if (/[a-z]/.test(value)) classes++;
  if (/[A-Z]/.test(value)) classes++;
  if (/\d/.test(value)) classes++;
  if (/[^A-Za-z0-9]/.test(value)) classes++;
  return classes;
}

/** A machine-made secret: long, mixed and unpredictable (random base62/base64/hex). */
export function looksRandom(value: string): boolean {
  if (value.length < 16 || /\s/.test(value)) return false;
  if (characterClasses(value) < 2) return false;
  const entropy = shannonEntropy(value);
  // Hex tops out at 4 bits/char, so long hex strings get a lower bar than base62/base64.
  if (/^[0-9a-fA-F]+$/.test(value)) return value.length >= 20 && entropy >= 3.0;
  return entropy >= 3.3;
}

/** Template or redaction placeholders people write instead of the real value. */
export function isPlaceholder(value: string): boolean {
  const v = value.toLowerCase();
  if (/^[*x•.#?_-]+$/.test(v)) return true; // "********", "xxxx", "..."
  if (/^[<[{(].*[>\]})]$/.test(v)) return true; // "<password>", "[REDACTED]", "{{secret}}"
  if (/^\$\{?[a-z_][a-z0-9_]*\}?$/.test(v) || /^%[a-z_]+%$/.test(v)) return true; // $VAR, ${VAR}, %VAR%
  if (/^(?:\$\(|\$\{|\{\{|%\(|<%|@@)/.test(v)) return true; // $(cat file), ${…}, {{ var }}, %(name)s, <%= %>
  if (/^(?:process\.env\b|os\.environ\b|env\.|env\[|getenv\(|secrets\.|vault:|ssm:|arn:aws:)/.test(v)) return true;
  if (
    /^(?:redacted|hidden|masked|omitted|removed|none|null|nil|undefined|empty|blank|n\/a|na|tbd|todo|unset|secret|password|passwd|token)$/.test(
      v,
    )
  )
    return true;
  if (
    /^(?:your|my|the|some|insert|enter|put|replace)[_-]?(?:own[_-]?)?(?:[a-z]+[_-])?(?:api[_-]?)?(?:key|token|secret|password|pass|pwd|value)(?:[_-]?here)?$/.test(
      v,
    )
  )
    return true;
  if (/^[a-z_-]*(?:example|placeholder|dummy|sample)[a-z_-]*$/.test(v)) return true;
  return false;
}
