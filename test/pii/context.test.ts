import { describe, expect, it } from "vitest";
import { isPlaceholder, looksRandom, shannonEntropy } from "../../src/service/pipeline/pii/context.js";
import { isCommentary } from "../../src/service/pipeline/pii/words.js";

describe("value shape", () => {
  it("Shannon entropy is 0 for one repeated symbol and log2(n) for n distinct ones", () => {
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("abcd")).toBeCloseTo(2);
  });

  it("random base62, base64 and hex values look random; words, ids and short values do not", () => {
    for (const v of ["TcXmk7xZLYnCvM87mEy6Ghok", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "18d4ca1733359f4ffe64b78e8c5217b4"]) {
      expect(looksRandom(v), v).toBe(true);
    }
    for (const v of ["correcthorsebatterystaple", "Ab1", "1234567890123456", "aaaaaaaaaaaaaaaaaaaa1", "the quick brown fox"]) {
      expect(looksRandom(v), v).toBe(false);
    }
  });

  it("placeholders, redactions and variable references are not values", () => {
    for (const v of [
      "********",
      "xxxx",
      "<password>",
      "[REDACTED]",
      "{{ secret }}",
      "${DB_PASSWORD}",
      "$DB_PASS",
      "%PASS%",
      "$(cat /run/secrets/db)",
      "process.env.DB_PASS",
      "YOUR_API_KEY",
      "your-password-here",
      "example_token",
      "N/A",
      "none",
    ]) {
      expect(isPlaceholder(v), v).toBe(true);
    }
    for (const v of ["hunter2", "envy2024!", "MyPassword123!", "sk_live_TcXmk7xZLYnCvM87"]) expect(isPlaceholder(v), v).toBe(false);
  });

  it("words about a password (adjectives, participles, function words) are commentary", () => {
    for (const v of ["required", "rotated", "expiring", "the", "incorrect", "different", "abgelaufen", "at least"]) {
      expect(isCommentary(v), v).toBe(true);
    }
    for (const v of ["swordfish", "hunter2", "sunflower", "Tannenbaum7"]) expect(isCommentary(v), v).toBe(false);
  });
});
