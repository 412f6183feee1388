import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { screenPii } from "../../src/service/pipeline/pii/index.js";
import type { PiiType } from "../../src/service/pipeline/pii/types.js";
import type { LabeledCase } from "./support.js";

const ALL_TYPES: PiiType[] = ["credit_card", "national_id", "password", "api_key", "private_key"];
const cases: LabeledCase[] = JSON.parse(readFileSync(new URL("../eval/sets/pii.json", import.meta.url), "utf8"));

describe("screenPii's verdict", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is { ok: true } for clean text and { ok: false, types } naming only kinds", () => {
    expect(screenPii("Met the platform team about the billing migration.")).toEqual({ ok: true });
    const verdict = screenPii("card 4242 4242 4242 4242 and password: hunter2");
    expect(verdict).toEqual({ ok: false, types: ["credit_card", "password"] });
  });

  it("never contains any part of the matched text", () => {
    for (const c of cases.filter((x) => x.pii)) {
      const verdict = screenPii(c.text);
      expect(Object.keys(verdict).sort()).toEqual(verdict.ok ? ["ok"] : ["ok", "types"]);
      if (!verdict.ok) for (const t of verdict.types) expect(ALL_TYPES).toContain(t);
      const serialized = JSON.stringify(verdict);
      const vocabulary = JSON.stringify({ ok: false, types: ALL_TYPES });
      for (const token of c.text.split(/[^A-Za-z0-9]+/).filter((t) => t.length >= 4)) {
        if (vocabulary.includes(token)) continue;
        expect(serialized.includes(token), `${c.note}: verdict leaks "${token.slice(0, 2)}…"`).toBe(false);
      }
    }
  });

  it("reports each kind once, in a fixed order, and is the same on every call", () => {
    const text = "api_key=sk_live_TcXmk7xZLYnCvM87mEy6Ghok and AKIAIOSFODNN7EXAMPLE, card 4242424242424242";
    const first = screenPii(text);
    expect(first).toEqual({ ok: false, types: ["credit_card", "api_key"] });
    for (let i = 0; i < 3; i++) expect(screenPii(text)).toEqual(first);
  });

  it("writes nothing to the console", () => {
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    for (const c of cases) screenPii(c.text);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});

describe("screening speed on adversarial 8,000-character input", () => {
  const N = 8000;
  const fill = (s: string): string => s.repeat(Math.ceil(N / s.length)).slice(0, N);
  const inputs: Record<string, string> = {
    prose: fill("We met with the platform team about the billing migration on 2024-05-01 at 10:30, ticket OPS-1021. "),
    digits: fill("1"),
    "spaced digits": fill("1 "),
    "card-like groups": fill("4242 "),
    "hyphenated digits": fill("12-"),
    "comma groups": fill("4242,"),
    "line groups": fill("4242\n"),
    "mixed groups": fill("4242 \n-4242\t,"),
    "spaced breaks": fill("1 \n "),
    "password labels": fill("password is "),
    "CJK labels": fill("密码是 "),
    "CJK label, spaces": `密码${" ".repeat(N - 4)}是`,
    "Korean labels": fill("비밀번호는 a"),
    "password qualifiers": fill("password for the "),
    "secret name chain": fill("token_"),
    "key assignments": fill("api_key="),
    "sk- prefixes": fill("sk-"),
    "jwt-like": fill("eyJhbGciOiJIUzI1NiJ9."),
    "wrapped jwt-like": fill("eyJhbGciOiJIUzI1NiJ9\n."),
    "base64 tokens": fill("MTIzNDU2Nzg5MDEy "),
    "percent escapes": fill("%34%31 "),
    "base62 run": fill("aZ09xY8"),
    "NI-like": fill("AB 12 34 56 "),
    colons: fill(":"),
    "unclosed quotes": fill('password: "'),
    urls: fill("postgres://u:"),
    "seed words": fill("abc "),
  };

  it("finishes each in well under 200 ms of CPU time", () => {
    const rows: string[] = [];
    for (const [name, text] of Object.entries(inputs)) {
      for (let i = 0; i < 3; i++) screenPii(text); // warm up the JIT
      const wall = performance.now();
      const cpu = process.cpuUsage();
      for (let i = 0; i < 5; i++) screenPii(text);
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000 / 5;
      rows.push(`${name}: ${cpuMs.toFixed(2)} ms cpu, ${((performance.now() - wall) / 5).toFixed(2)} ms wall`);
      expect(cpuMs, name).toBeLessThan(200); // CPU time, so a busy CI machine does not fail it
    }
    console.log(`[pii] 8,000-char screening times: ${rows.join("; ")}`);
  });
});
