import { describe, expect, it } from "vitest";
import { isCardNumber } from "../../src/service/pipeline/pii/credit-card.js";
import { kinds } from "./support.js";

describe("credit card numbers", () => {
  it("are rejected in every common print format", () => {
    expect(kinds("card 4242 4242 4242 4242")).toEqual(["credit_card"]);
    expect(kinds("card 4242-4242-4242-4242")).toEqual(["credit_card"]);
    expect(kinds("4242424242424242")).toEqual(["credit_card"]);
    expect(kinds("Amex 3782 822463 10005")).toEqual(["credit_card"]);
    expect(kinds("Diners 3056 930902 5904")).toEqual(["credit_card"]);
    expect(kinds("UnionPay 6227936339655524134")).toEqual(["credit_card"]);
    expect(kinds("4242 4242 4242 4242 12/27 123")).toEqual(["credit_card"]);
  });

  it("are recognised for each issuer range", () => {
    const numbers = {
      visa: "4875343064526005",
      mastercard51: "5555555555554444",
      mastercard2: "2221033177331477",
      amex34: "341465774825692",
      amex37: "378282246310005",
      discover6011: "6011111111111117",
      discover644: "6443349752224264",
      discover65: "6549532034960150",
      jcb: "3589695978900199",
      diners300: "30073939522687",
      diners36: "36048877859758",
      unionpay: "6200000000000005",
      maestro: "6304554867738086",
      mir: "2200052143758600",
    };
    for (const [network, number] of Object.entries(numbers)) expect(isCardNumber(number), network).toBe(true);
  });

  it("need a valid Luhn digit, a known issuer and an issued length", () => {
    expect(isCardNumber("4242424242424241")).toBe(false); // Luhn
    expect(isCardNumber("7788126988404873")).toBe(false); // Luhn-valid, no network starts with 7
    expect(isCardNumber("1024123968777854")).toBe(false);
    expect(isCardNumber("378282246310005" + "0")).toBe(false); // Amex is 15 digits
    expect(kinds("card 4242 4242 4242 4241")).toEqual([]);
  });

  it("in inconsistent groups or inside longer numbers are not cards", () => {
    expect(kinds("9400 1000 0000 0000 0000 00")).toEqual([]);
    expect(kinds("ref 4242 42424 2424 242")).toEqual([]);
    expect(kinds("id X4242424242424242")).toEqual([]);
    expect(kinds("value 0.4242424242424242")).toEqual([]);
  });

  it("labelled as an order, tracking or other id number pass; a card word wins over the label", () => {
    expect(kinds("Order #4242424242424242 shipped")).toEqual([]);
    expect(kinds("tracking number: 4111 1111 1111 1111")).toEqual([]);
    expect(kinds("PO number 4111111111111111 from the ERP")).toEqual([]);
    expect(kinds("Order 4242424242424242 paid with card 4242424242424242")).toEqual(["credit_card"]);
    expect(kinds("order paid by visa 4242 4242 4242 4242")).toEqual(["credit_card"]);
  });

  it("13-digit numbers count only with a card word (EAN-13 barcodes look the same)", () => {
    expect(kinds("EAN 4006381333931")).toEqual([]);
    expect(kinds("old visa card 4582029906867")).toEqual(["credit_card"]);
  });

  it("are found across any mix of separators and line breaks (issue 28, item 5)", () => {
    for (const text of [
      "4111 1111-1111 1111",
      "4111\n1111\n1111\n1111",
      "4111\r\n1111\r\n1111\r\n1111",
      "4111,1111,1111,1111",
      "card: 4111, 1111, 1111, 1111",
      "4111\t1111 1111\t1111",
      "4111\u00a01111 1111-1111",
      "4111 \n 1111-1111\t1111",
      "Amex 3782-822463\n10005",
      "my card is\n4111\n1111 1111\n1111\nexp 09/28",
    ]) {
      expect(kinds(text), JSON.stringify(text)).toEqual(["credit_card"]);
    }
  });

  it("mixed separators do not join look-alikes into a card", () => {
    for (const text of [
      "4111 1111-1111 1112", // Luhn
      "Order #4111 1111-1111 1111",
      "tracking number:\n4111\n1111\n1111\n1111",
      "years 2019, 2020, 2021, 2022",
      "call +1 555-123-4567, or 555 987 6543",
      "2024-05-01\n2024-06-01\n2024-07-01",
      "1234 4111\n1111-1111 1111", // a slice of a longer grouped number
      "ISBN 978-0-306-40615-7, 978-1-4028-9462-6",
      "rows 12,34,56,78,90,12,34,56",
      "units,price\n4200,1350\n4410,4465", // a CSV grid: commas and line breaks are not mixed in one number
    ]) {
      expect(kinds(text), JSON.stringify(text)).toEqual([]);
    }
  });

  it("valid IBANs are not mistaken for card numbers", () => {
    expect(kinds("IBAN DE89 3704 0044 0532 0130 00")).toEqual([]);
    expect(kinds("IBAN GB29NWBK60161331926819")).toEqual([]);
  });
});
