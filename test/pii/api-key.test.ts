import { describe, expect, it } from "vitest";
import { kinds } from "./support.js";

const KEY = ["api_key"];
const b62 = "TcXmk7xZLYnCvM87mEy6GhokXcfGCM8LmgpmRGW4fOA5UB0nz4bHh4krZL1cnpPGFOzX1C5b";

describe("vendor API keys and tokens are rejected", () => {
  it.each([
    ["AWS access key id", "AKIAIOSFODNN7EXAMPLE"],
    ["AWS STS key id", "ASIAX4BTOZ3RCMGOU6SL"],
    ["GitHub classic", `ghp_${b62.slice(0, 36)}`],
    ["GitHub app", `ghs_${b62.slice(0, 36)}`],
    ["GitHub fine-grained", `github_pat_11A${b62.slice(0, 19)}_${b62.slice(0, 59)}`],
    ["Stripe live", `sk_live_${b62.slice(0, 24)}`],
    ["Stripe test", `sk_test_${b62.slice(0, 24)}`],
    ["Stripe restricted", `rk_live_${b62.slice(0, 24)}`],
    ["Stripe webhook", `whsec_${b62.slice(0, 32)}`],
    ["OpenAI", `sk-${b62.slice(0, 48)}`],
    ["OpenAI project", `sk-proj-${b62.slice(0, 60)}`],
    ["Anthropic", `sk-ant-api03-${b62.slice(0, 60)}AA`],
    ["Slack bot", `xoxb-123456789012-1234567890123-${b62.slice(0, 24)}`],
    ["Slack app", `xapp-1-A0123ABCD-1234567890123-${"ab12".repeat(16)}`],
    ["Slack webhook", `https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/${b62.slice(0, 24)}`],
    ["Google API key", `AIza${b62.slice(0, 35)}`],
    ["Google OAuth secret", `GOCSPX-${b62.slice(0, 28)}`],
    ["workspace key", `svc_ws_${b62.slice(0, 32)}`],
    ["npm", `npm_${b62.slice(0, 36)}`],
    ["GitLab", `glpat-${b62.slice(0, 20)}`],
    ["Vault", `hvs.${b62.slice(0, 40)}`],
  ])("%s", (_name, token) => {
    expect(kinds(`token for the job: ${token}`)).toEqual(KEY);
    expect(kinds(token)).toEqual(KEY);
  });
});

describe("JWTs", () => {
  const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString("base64url");
  const payload = Buffer.from('{"sub":"42","exp":1900000000}').toString("base64url");
  it("a three-part token whose header decodes to JSON with alg is an api key", () => {
    expect(kinds(`Bearer ${header}.${payload}.NTUyOTEyNDQ2MTE1NTYwOTgzNjA1MjgwNjkyNDYw`)).toEqual(KEY);
  });
  it("three dotted base64 parts without a JWT header pass", () => {
    const notHeader = Buffer.from('{"kid":"x"}').toString("base64url");
    expect(kinds(`${notHeader}.${payload}.NTUyOTEyNDQ2MTE1NTYwOTgzNjA1MjgwNjkyNDYw`)).toEqual([]);
  });
});

describe("high-entropy values assigned to secret names", () => {
  it.each([
    `api_key = "18d4ca1733359f4ffe64b78e8c5217b4"`,
    `client_secret=${b62.slice(0, 40)}`,
    `access_token: ${b62.slice(0, 43)}`,
    `JWT_SECRET=${b62.slice(0, 24)}`,
    `X-Api-Key: ${b62.slice(0, 40)}`,
    `The Mailchimp API key is 18d4ca1733359f4ffe64b78e8c5217b4-us21`,
    `Twilio auth token is 18d4ca1733359f4ffe64b78e8c5217b4`,
  ])("%s", (text) => {
    expect(kinds(text)).toEqual(KEY);
  });

  it.each([
    "Rotate the API keys every quarter",
    "The Stripe key lives in Vault",
    "API key: stored in AWS Secrets Manager",
    "api_key=YOUR_API_KEY",
    "max_tokens=4096",
    "token_count: 128000",
    "Our workspace key starts with svc_ws_abcd",
    "svc_ws_abcd",
    "Publishable key pk_live_51H8xyzABCDEFGHIJKLMNOPQRS is safe in the browser",
    "Primary key: user_id; sort key: created_at",
    "Idempotency-Key: 7f3c9a2e-5b1d-4e8f-9a6c-2d4b8e1f0a3c",
    "Fixed in commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "request 550e8400-e29b-41d4-a716-446655440000",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "The key takeaway: ship smaller PRs",
    "Revoke any GitHub token that starts with ghp_ if leaked",
  ])("passes: %s", (text) => {
    expect(kinds(text)).toEqual([]);
  });
});

describe("private keys", () => {
  it.each([
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    "key body MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    "private_key: 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    "seed phrase: legal winner thank year wave sausage worth useful legal winner thank yellow",
  ])("%s", (text) => {
    expect(kinds(text)).toEqual(["private_key"]);
  });

  it("public keys and certificates pass", () => {
    expect(kinds("-----BEGIN PUBLIC KEY-----")).toEqual([]);
    expect(kinds("-----BEGIN CERTIFICATE-----")).toEqual([]);
    expect(kinds("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop")).toEqual([]);
  });
});
