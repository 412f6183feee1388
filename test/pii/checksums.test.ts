import { describe, expect, it } from "vitest";
import {
  bsnValid,
  chineseIdValid,
  codiceFiscaleValid,
  cpfValid,
  ibanValid,
  luhnValid,
  nirValid,
  nricValid,
  peselValid,
  spanishIdValid,
  steuerIdValid,
  tfnValid,
  verhoeffValid,
} from "../../src/service/pipeline/pii/checksums.js";
import { ssnValid } from "../../src/service/pipeline/pii/national-id.js";

// Published specimen numbers for each algorithm, and the same numbers with one digit changed.
describe("check-digit algorithms accept published specimens and reject a changed digit", () => {
  it("Luhn", () => {
    for (const n of ["4242424242424242", "378282246310005", "6011111111111117", "046454286"]) expect(luhnValid(n)).toBe(true);
    for (const n of ["4242424242424241", "378282246310006", "046454287"]) expect(luhnValid(n)).toBe(false);
  });
  it("Verhoeff (Aadhaar)", () => {
    expect(verhoeffValid("2363")).toBe(true);
    expect(verhoeffValid("499118665246")).toBe(true);
    expect(verhoeffValid("499118665247")).toBe(false);
    expect(verhoeffValid("499118665264")).toBe(false); // transposition
  });
  it("IBAN mod 97", () => {
    expect(ibanValid("DE89370400440532013000")).toBe(true);
    expect(ibanValid("GB29NWBK60161331926819")).toBe(true);
    expect(ibanValid("DE89370400440532013001")).toBe(false);
  });
  it("Spanish DNI and NIE check letters (n mod 23)", () => {
    expect(spanishIdValid("12345678Z")).toBe(true);
    expect(spanishIdValid("00000000T")).toBe(true);
    expect(spanishIdValid("12345678A")).toBe(false);
    expect(spanishIdValid("X1234567L")).toBe(true);
    expect(spanishIdValid("Y1234567X")).toBe(true);
    expect(spanishIdValid("Z1234567R")).toBe(true);
    expect(spanishIdValid("X1234567T")).toBe(false);
  });
  it("Dutch BSN 11-test", () => {
    expect(bsnValid("111222333")).toBe(true);
    expect(bsnValid("123456782")).toBe(true);
    expect(bsnValid("123456789")).toBe(false);
    expect(bsnValid("000000000")).toBe(false);
  });
  it("Italian codice fiscale check character", () => {
    expect(codiceFiscaleValid("MRTMTT91D08F205J")).toBe(true);
    expect(codiceFiscaleValid("RSSMRA85T10A562S")).toBe(true);
    expect(codiceFiscaleValid("RSSMRA85T10A562T")).toBe(false);
  });
  it("French NIR key, including Corsica 2A/2B", () => {
    expect(nirValid("255081416802538")).toBe(true);
    expect(nirValid("255081416802539")).toBe(false);
    expect(nirValid("292112A00401759")).toBe(true);
  });
  it("German Steuer-ID: ISO 7064 MOD 11,10 and the repeated-digit rule", () => {
    expect(steuerIdValid("86095742719")).toBe(true);
    expect(steuerIdValid("86095742718")).toBe(false);
    expect(steuerIdValid("12345678903")).toBe(false); // no digit repeats
    expect(steuerIdValid("06095742719")).toBe(false); // leading zero
  });
  it("Brazilian CPF two check digits; repeated digits are invalid", () => {
    expect(cpfValid("52998224725")).toBe(true);
    expect(cpfValid("52998224726")).toBe(false);
    expect(cpfValid("11111111111")).toBe(false);
  });
  it("Polish PESEL, Chinese resident id, Singapore NRIC, Australian TFN", () => {
    expect(peselValid("44051401359")).toBe(true);
    expect(peselValid("44051401358")).toBe(false);
    expect(chineseIdValid("11010519491231002X")).toBe(true);
    expect(chineseIdValid("110105194912310021")).toBe(false);
    expect(chineseIdValid("11010519491331002X")).toBe(false); // month 13
    expect(nricValid("S1234567D")).toBe(true);
    expect(nricValid("S1234567A")).toBe(false);
    expect(tfnValid("123456782")).toBe(true);
    expect(tfnValid("123456789")).toBe(false);
  });
});

describe("US SSN ranges", () => {
  it("rejects area 000, 666 and 900-999, group 00 and serial 0000", () => {
    expect(ssnValid("123", "45", "6789")).toBe(true);
    expect(ssnValid("899", "99", "9999")).toBe(true);
    expect(ssnValid("000", "45", "6789")).toBe(false);
    expect(ssnValid("666", "45", "6789")).toBe(false);
    expect(ssnValid("900", "45", "6789")).toBe(false);
    expect(ssnValid("999", "45", "6789")).toBe(false);
    expect(ssnValid("123", "00", "6789")).toBe(false);
    expect(ssnValid("123", "45", "0000")).toBe(false);
  });
});
