// The test card number the PII tests store ("4111 1111 1111 1111") found anywhere in `text`, as written or with its
// spaces gone. Not "4111" alone: a service's port (41111) or a random request id can hold those four digits.
import { expect } from "vitest";

export function expectNoCardNumber(text: string): void {
  expect(text).not.toContain("4111 1111");
  expect(text).not.toContain("41111111");
}
