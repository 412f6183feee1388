import { describe, expect, it } from "vitest";
import { kinds } from "./support.js";

const ID = ["national_id"];

describe("US social security numbers", () => {
  it("in ###-##-#### form are rejected with or without a label", () => {
    expect(kinds("SSN 536-22-8726")).toEqual(ID);
    expect(kinds("record: Jane, 536-22-8726, hired 2019")).toEqual(ID);
  });
  it("as bare or spaced digits count only with a label", () => {
    expect(kinds("social security number 536228726")).toEqual(ID);
    expect(kinds("SSN: 536 22 8726")).toEqual(ID);
    expect(kinds("batch 536228726 processed")).toEqual([]);
  });
  it("in invalid ranges (area 000, 666, 9xx; group 00; serial 0000) pass unlabelled, and are rejected when labelled", () => {
    for (const n of ["000-22-8726", "666-22-8726", "912-22-8726", "536-00-8726", "536-22-0000"]) {
      expect(kinds(`record: Jane, ${n}, hired 2019`), n).toEqual([]);
      expect(kinds(`SSN ${n}`), n).toEqual(ID);
      expect(kinds(`my social security number is ${n}`), n).toEqual(ID);
    }
  });
  it("ITINs are recognised when labelled", () => {
    expect(kinds("ITIN 912-70-1234")).toEqual(ID);
  });
});

describe("other national identity numbers", () => {
  it("UK National Insurance numbers follow the prefix rules", () => {
    expect(kinds("NI number AB123456C")).toEqual(ID);
    expect(kinds("JG 10 37 59 A")).toEqual(ID);
    expect(kinds("QQ123456C is the specimen")).toEqual([]); // Q is never a first letter
    expect(kinds("GB123456A")).toEqual([]); // GB is not allocated
    expect(kinds("AO123456A")).toEqual([]); // O is never a second letter
    expect(kinds("AB123456E")).toEqual([]); // suffix is A-D
  });
  it("Canadian SINs need Luhn and a label or the ###-###-### form", () => {
    expect(kinds("SIN 513 639 617")).toEqual(ID);
    expect(kinds("social insurance number 513639617")).toEqual(ID);
    expect(kinds("contractor 513-639-617 starts Monday")).toEqual(ID);
    expect(kinds("contractor 513-639-618 starts Monday")).toEqual([]); // fails Luhn, and no label
    // Labelled, a SIN counts by its shape even when Luhn or the first-digit rule cannot confirm it.
    expect(kinds("SIN 513 639 618")).toEqual(ID);
    expect(kinds("SIN 046 454 286")).toEqual(ID);
    expect(kinds("My social insurance number is 012-345-678.")).toEqual(ID);
    expect(kinds("Madrid +34 612 345 678")).toEqual([]);
  });
  it("Spanish DNI and NIE need the right check letter", () => {
    expect(kinds("DNI 12345678Z")).toEqual(ID);
    expect(kinds("ref 12345678A")).toEqual([]);
    expect(kinds("DNI 12345678A")).toEqual(ID); // labelled: the shape is enough
    expect(kinds("NIE X1234567L")).toEqual(ID);
    expect(kinds("NIE X1234567T")).toEqual(ID);
  });
  it("checksum-validated numbers from other countries", () => {
    expect(kinds("BSN 111222333")).toEqual(ID);
    expect(kinds("batch 111222333")).toEqual([]); // BSN needs its label
    expect(kinds("codice fiscale MRTMTT91D08F205J")).toEqual(ID);
    expect(kinds("NIR 2 55 08 14 168 025 38")).toEqual(ID);
    expect(kinds("Steuer-ID 86095742719")).toEqual(ID);
    expect(kinds("Aadhaar 4991 1866 5246")).toEqual(ID);
    expect(kinds("FedEx 499118665246")).toEqual([]); // 12 digits count as Aadhaar only when labelled
    expect(kinds("gift card 4991 1866 5246")).toEqual([]);
    expect(kinds("CPF 529.982.247-25")).toEqual(ID);
    expect(kinds("paid 529.982.247-26")).toEqual([]);
    expect(kinds("CPF 529.982.247-26")).toEqual(ID); // labelled: the shape is enough
    expect(kinds("PESEL 44051401359")).toEqual(ID);
    expect(kinds("resident id 11010519491231002X")).toEqual(ID);
    expect(kinds("NRIC S1234567D")).toEqual(ID);
    expect(kinds("TFN 123 456 782")).toEqual(ID);
    expect(kinds("NHS number 943 476 5919")).toEqual(ID);
    expect(kinds("passport number: K12345678")).toEqual(ID);
  });
  it("every covered country's labelled number counts by its shape when its checksum or range fails", () => {
    const labelled = [
      "ITIN 900-00-0000",
      "NI number QQ 12 34 56 C",
      "BSN: 123456789",
      "codice fiscale AAAAAA00A00A000A",
      "Steuer-ID 12 345 678 901",
      "Aadhaar 1234 5678 9012",
      "PESEL 12345678901",
      "resident id 123456789012345678",
      "TFN 123 456 789",
      "NHS number 123 456 7890",
      "personnummer 19991399-0000",
      "fødselsnummer 010101 00000",
      "CPR-nummer 320199-0000",
    ];
    for (const text of labelled) expect(kinds(text), text).toEqual(ID);
    const unlabelled = ["batch 123456789", "order 12 345 678 901", "FedEx 1234 5678 9012", "ref 12345678901", "call 123 456 7890"];
    for (const text of unlabelled) expect(kinds(text), text).toEqual([]);
  });
  it("IBANs are bank accounts, not identity numbers, and pass", () => {
    expect(kinds("Pay to DE89370400440532013000")).toEqual([]);
  });
});

// Issue 28, item 6: a Chinese resident id inside a sentence, with or without its label.
describe("Chinese resident identity numbers", () => {
  it.each([
    "我的身份证号码是11010519491231002X",
    "我的身份证号是 11010519491231002X。",
    "身份證號碼：11010519491231002X",
    "身份证11010519491231002x",
    "her PRC resident id is 11010519491231002X",
    "11010519491231002X",
    "ID on the form: 440524198001010013",
  ])("%s is refused", (text) => {
    expect(kinds(text)).toContain("national_id");
  });

  it.each([
    "订单号 440524198001010013", // a valid id's digits, named an order number
    "order 440524198001010013 shipped",
    "11010519491231002", // 17 digits
    "110105194912310021", // wrong check digit
    "110105199913310025", // no 13th month
  ])("%s passes", (text) => {
    expect(kinds(text)).toEqual([]);
  });
});
