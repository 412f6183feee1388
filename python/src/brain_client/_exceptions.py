"""Every way a call can fail: one class per status family under one base. Messages never carry the key."""

from __future__ import annotations

from typing import Any, Optional


class BrainError(Exception):
    """The base of every error this client raises."""

    status_code: Optional[int]
    request_id: Optional[str]
    body: Any
    code: Optional[str]

    def __init__(
        self,
        message: str,
        *,
        status_code: Optional[int] = None,
        request_id: Optional[str] = None,
        body: Any = None,
        code: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.request_id = request_id
        self.body = body
        self.code = code


class AuthenticationError(BrainError):
    """401, or no key given by argument or BRAIN_API_KEY (code `missing_api_key`, no status). Never retried."""


class PermissionDeniedError(BrainError):
    """403: the workspace is suspended, deleted, or at its limit (tell them apart by `code`). Never retried."""


class NotFoundError(BrainError):
    """404. Never retried."""


class ValidationError(BrainError):
    """422 (and 400, 413, 415): the service rejected the payload, e.g. code `pii_detected`. Never retried."""

    @property
    def pii_types(self) -> list[str]:
        error = self.body.get("error") if isinstance(self.body, dict) else None
        found = error.get("pii_types") if isinstance(error, dict) else None
        return [str(t) for t in found] if isinstance(found, list) else []


class RateLimitError(BrainError):
    """429. Never retried: the caller decides, after `retry_after` seconds when the service said."""

    def __init__(self, message: str, *, retry_after: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServiceUnavailableError(BrainError):
    """502, 503, 504: a temporary problem; raised once the retries are spent."""


class InternalServerError(BrainError):
    """Any other 5xx. Not retried (a store may have been written)."""


class APIConnectionError(BrainError):
    """No answer: connection refused or reset, DNS failure. `status_code` is None."""


class APITimeoutError(APIConnectionError):
    """No answer within the timeout. `status_code` is None."""
