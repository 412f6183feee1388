"""Defaults named by the specification (Limits) and DESIGN.md; the TypeScript client uses the same values."""

DEFAULT_TIMEOUT = 30.0
"""Seconds per attempt."""
DEFAULT_MAX_RETRIES = 2
"""Retries after the first attempt (3 attempts in all)."""
DEFAULT_BASE_URL = "http://127.0.0.1:8787"
"""Where `brain-mcp serve` listens by default."""
MAX_REDIRECTS = 3
RETRY_BASE = 0.5
"""Seconds: full-jitter backoff is uniform in [0, min(RETRY_CAP, RETRY_BASE * 2**(attempt - 1))]."""
RETRY_CAP = 8.0
RETRY_AFTER_MAX = 30.0
"""A 503's Retry-After is honoured up to this many seconds."""
RETRYABLE_STATUS = frozenset({502, 503, 504})
FOLLOWED_REDIRECTS = frozenset({301, 308})
