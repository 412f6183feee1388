// The container's health check: GET /v1/status with a well-formed key that no workspace holds. The service can only
// answer 401 invalid_api_key after looking the key up in its store, so that answer means the HTTP server and the store
// both work, and the image needs no secret. Anything else (5xx, no answer within 4 s) is unhealthy.
const UNKNOWN_KEY = `svc_ws_${"0".repeat(32)}`;
const port = process.env.BRAIN_HEALTHCHECK_PORT ?? "8787"; // set it when the command serves another port
try {
  const response = await fetch(`http://127.0.0.1:${port}/v1/status`, {
    headers: { authorization: `Bearer ${UNKNOWN_KEY}` },
    signal: AbortSignal.timeout(4000),
  });
  const body = await response.json().catch(() => ({}));
  const code = body?.error?.code ?? body?.code;
  if (response.status === 401 && code === "invalid_api_key") process.exit(0);
  console.error(`health check: /v1/status answered ${response.status} ${code ?? ""}`);
} catch (error) {
  console.error(`health check: /v1/status did not answer: ${error.message}`);
}
process.exit(1);
