// Private keys: PEM/OpenSSH/PGP blocks, their bare base64 bodies, and wallet keys or seed phrases when labelled.
import { containsAssignedSecret } from "./api-key.js";

const KEY_MATERIAL: readonly RegExp[] = [
  /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/, // PEM (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP)
  /\bPuTTY-User-Key-File-\d:/, // PuTTY .ppk
  /\bAGE-SECRET-KEY-1[0-9A-Z]{50,}/, // age
  /\bMII[A-Za-z0-9+/]{3}IBAAKC[AB]/, // DER RSAPrivateKey (PKCS#1) in base64, without its PEM armour
  /\bMII[A-Za-z0-9+/]{3}IBADANBgkqhkiG9w0BAQEFAASC/, // DER PKCS#8 RSA private key in base64
  /\bMHcCAQEEI[A-Za-z0-9+/]{20,}/, // DER EC P-256 private key in base64
  /\bb3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{20,}/, // "openssh-key-v1" body in base64
  /\b(?:[xt]prv|[yzYZuv]prv)[1-9A-HJ-NP-Za-km-z]{100,}/, // BIP32 extended private key
];

// "seed phrase: word word … (12-24 words)": a wallet's private key in words.
const SEED_PHRASE =
  /\b(?:(?:seed|recovery|mnemonic|backup|secret|wallet)\s+(?:phrase|words)|mnemonic)\s*(?:is|:|=)\s*["']?(?:[a-z]{3,8}[ ,]+){11,23}[a-z]{3,8}\b/i;

/** True when the text holds private key material. */
export function containsPrivateKey(text: string): boolean {
  if (KEY_MATERIAL.some((re) => re.test(text))) return true;
  if (SEED_PHRASE.test(text)) return true;
  return /priv/i.test(text) && containsAssignedSecret(text, "private_key");
}
