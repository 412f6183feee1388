// A self-signed certificate for one test (openssl, RSA 2048, valid a day), in a temp folder of its own.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Writes cert.pem and key.pem for `CN=localhost` with this subjectAltName (e.g. `IP:127.0.0.1`); returns their paths. */
export function selfSignedCertificate(subjectAltName: string): { dir: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "brain-tls-"));
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      `subjectAltName=${subjectAltName}`,
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  return { dir, cert, key };
}
