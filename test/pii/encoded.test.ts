// Encoded secrets (issue 28, item 10): percent-encoding, base64 of a card or a password, and a JWT broken across
// lines are read as what they decode to; spelled-out digits are not (the README's PII section states the limits).
import { describe, expect, it } from "vitest";
import { kinds } from "./support.js";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const JWT = [
  b64url('{"alg":"HS256","typ":"JWT"}'),
  b64url('{"sub":"1234567890","name":"John Doe","iat":1516239022}'),
  "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
].join(".");

describe("percent-encoded secrets", () => {
  it.each([
    ["card%204111%201111%201111%201111", "credit_card"],
    ["https://shop.example.com/pay?cc=4111%201111%201111%201111&exp=09%2F28", "credit_card"],
    ["q=card+4111+1111+1111+1111", "credit_card"],
    ["login?user=admin&password%3DHunter2%21x9", "password"],
    ["%70%61%73%73%77%6f%72%64%3a%20Hunter2!x9", "password"],
    ["ssn%3A%20123-45-6789", "national_id"],
  ])("%s is refused as %s", (text, kind) => {
    expect(kinds(text)).toContain(kind);
  });

  it.each([
    "https://example.com/search?q=order%20number%204111%201111%201111%201111",
    "https://en.wikipedia.org/wiki/Caf%C3%A9_society",
    "100%25 of the tests pass, 50% of the time",
    "path=%2Fhome%2Fuser%2Fdocs&page=2",
  ])("%s passes", (text) => {
    expect(kinds(text)).toEqual([]);
  });
});

describe("base64-encoded secrets", () => {
  it.each([
    [`card ${b64("4111111111111111")}`, "credit_card"],
    [`payload: ${b64("4111 1111 1111 1111")}`, "credit_card"],
    [`stored as ${b64("password: Hunter2!x9")} in the env`, "password"],
    [`blob=${b64('{"ssn":"123-45-6789"}')}`, "national_id"],
  ])("%s is refused as %s", (text, kind) => {
    expect(kinds(text)).toContain(kind);
  });

  it.each([
    `the logo is ${b64("just a picture of a cat")}`,
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "request id 550e8400-e29b-41d4-a716-446655440000",
    "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    `order ${b64("Order #4111111111111111")}`,
    "ThisIsAVeryLongIdentifierNameForTesting",
  ])("%s passes", (text) => {
    expect(kinds(text)).toEqual([]);
  });
});

describe("a JWT broken across lines", () => {
  it.each([
    JWT.replace(/\./g, ".\n"),
    JWT.replace(/\./g, "\n."),
    `token:\n${JWT.slice(0, 30)}\n${JWT.slice(30, 90)}\n${JWT.slice(90)}`,
    `Authorization: Bearer ${JWT.slice(0, 50)}\r\n  ${JWT.slice(50)}`,
  ])("%j is refused", (text) => {
    expect(kinds(text)).toContain("api_key");
  });

  it("separate lines of prose and ids are not joined into one", () => {
    expect(kinds("eyJ is how base64 JSON starts\nsee the notes")).toEqual([]);
  });
});

describe("what is not decoded (a stated limit)", () => {
  it("spelled-out digits pass", () => {
    expect(kinds("four one one one, one one one one, one one one one, one one one one")).toEqual([]);
  });
});
