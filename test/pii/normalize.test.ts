// The screen reads text as a person sees it: the forms issue 21 found stored with 200 are each refused, in every
// detector, and the look-alikes stay accepted.
import { describe, expect, it } from "vitest";
import { normalizeForScreening } from "../../src/service/pipeline/pii/normalize.js";
import { kinds } from "./support.js";

const ZWSP = "\u200b";
const fullwidth = (s: string) => s.replace(/\d/g, (d) => String.fromCodePoint(0xff10 + Number(d)));
const arabicIndic = (s: string) => s.replace(/\d/g, (d) => String.fromCodePoint(0x0660 + Number(d)));
const devanagari = (s: string) => s.replace(/\d/g, (d) => String.fromCodePoint(0x0966 + Number(d)));

describe("text is normalized before every detector", () => {
  it("folds compatibility forms, every decimal digit, invisible characters and separator runs", () => {
    expect(normalizeForScreening("４１１１")).toBe("4111");
    expect(normalizeForScreening("٤١١١ ۴۱۱۱ ४१११ 𝟒𝟏𝟏𝟏")).toBe("4111 4111 4111 4111");
    expect(normalizeForScreening(`4${ZWSP}1\u2060 1\u00ad1`)).toBe("41 11");
    expect(normalizeForScreening("4111 \u2013 1111\u00a0\u00a01111 / 1111")).toBe("4111-1111 1111/1111");
    expect(normalizeForScreening("ｓｋ＿ｌｉｖｅ")).toBe("sk_live");
    expect(normalizeForScreening("Plain prose, 10:30 on 2024-05-01.")).toBe("Plain prose, 10:30 on 2024-05-01.");
  });

  it("refuses the card numbers issue 21 stored with 200", () => {
    const card = "4111 1111 1111 1111";
    for (const text of [
      "4111.1111.1111.1111",
      "4111/1111/1111/1111",
      "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
      "4111111111111111".split("").join(ZWSP),
      fullwidth(card),
      arabicIndic(card),
      devanagari("4111-1111-1111-1111"),
      "4111 - 1111 - 1111 - 1111",
      "41 11 11 11 11 11 11 11",
    ]) {
      expect(kinds(`paid with ${text} yesterday`), JSON.stringify(text)).toEqual(["credit_card"]);
    }
  });

  it("refuses national ids and keys written the same ways", () => {
    expect(kinds(`SSN ${arabicIndic("123-45-6789")}`)).toEqual(["national_id"]);
    expect(kinds(`my ssn is ${fullwidth("078 05 1120")}`)).toEqual(["national_id"]);
    expect(kinds(`BSN ${"111222333".split("").join(ZWSP)}`)).toEqual(["national_id"]);
    expect(kinds("ｓｋ_ｌｉｖｅ_TcXmk7xZLYnCvM87mEy6Ghok")).toEqual(["api_key"]);
    expect(kinds(`AKIA${ZWSP}IOSFODNN7EXAMPLE`)).toEqual(["api_key"]);
    expect(kinds(`gh${ZWSP}p_${"a1B2c3D4e5".repeat(4)}`)).toEqual(["api_key"]);
  });

  it("keeps accepting decimals, versions, phone numbers, ISBNs and timestamps in any digit form", () => {
    for (const text of [
      "value 0.4242424242424242",
      "release 4.1.11.1111",
      "call +1 415 555 0132",
      arabicIndic("call +1 415 555 0132"),
      "ISBN 978-3-16-148410-0",
      fullwidth("ISBN 978-3-16-148410-0"),
      "at 2024-05-01T10:30:45.123Z",
      "timestamp 1700000000123",
      "Order #4111.1111.1111.1111 shipped",
    ]) {
      expect(kinds(text), text).toEqual([]);
    }
  });
});
