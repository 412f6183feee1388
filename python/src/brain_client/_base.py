"""What the sync and async clients share, so the two cannot drift: configuration, the request each operation sends,
and the decision taken on each attempt's outcome (return, retry after a delay, follow a redirect, or raise). The
two classes only do the I/O and the sleeping."""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import platform
import random
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Type, TypeVar, Union
from urllib.parse import urljoin, urlsplit

import httpx
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from ._constants import (
    DEFAULT_BASE_URL,
    FOLLOWED_REDIRECTS,
    MAX_REDIRECTS,
    RETRY_AFTER_MAX,
    RETRY_BASE,
    RETRY_CAP,
    RETRYABLE_STATUS,
)
from ._exceptions import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    BrainError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    ValidationError,
)
from ._version import __version__

log = logging.getLogger("brain_client")

USER_AGENT = f"brain-client/{__version__} python/{platform.python_version()}"

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class Call:
    """One operation as it goes on the wire."""

    method: str
    path: str
    body: Optional[Dict[str, Any]] = None
    idempotent_store: bool = False


@dataclass
class Exchange:
    """One call across its attempts and redirects: where it goes next and how many tries it has had."""

    operation: str
    method: str
    url: str
    headers: Dict[str, str]
    content: Optional[bytes]
    attempt: int = 0
    hops: int = 0


@dataclass(frozen=True)
class Wait:
    """Send the exchange again after `delay` seconds (0 for a redirect, which is not an attempt)."""

    delay: float


def is_loopback(host: str) -> bool:
    host = host.lower().strip("[]").rstrip(".")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_safe_url(url: str) -> bool:
    """https anywhere; plain http only to this machine, so the key never crosses a network unencrypted."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and is_loopback(parts.hostname or "")


def redact(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


class BaseClient:
    """Configuration and per-attempt decisions shared by `Brain` and `AsyncBrain`."""

    def __init__(
        self,
        api_key: Optional[str],
        base_url: Optional[str],
        timeout: float,
        max_retries: int,
        *,
        random_source: Callable[[], float] = random.random,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("BRAIN_API_KEY")
        if not key:
            raise AuthenticationError(
                "No API key: pass api_key=... or set BRAIN_API_KEY to your workspace key (svc_ws_...).",
                code="missing_api_key",
            )
        url = (base_url or os.environ.get("BRAIN_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BrainError(f"base_url must be an http(s) address, got {url!r}.", code="invalid_base_url")
        if not is_safe_url(url):
            raise BrainError(
                f"base_url {url} uses plain http off this machine; the key would travel unencrypted. Use https.",
                code="insecure_base_url",
            )
        if not timeout > 0:
            raise BrainError(f"timeout must be a positive number of seconds, got {timeout}.", code="invalid_option")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise BrainError(
                f"max_retries must be a whole number 0 or above, got {max_retries}.", code="invalid_option"
            )
        self.api_key = key
        self.base_url = url
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self._random = random_source

    # What each operation sends (the resources only choose among these).

    @staticmethod
    def store_call(text: str, meta: Optional[Mapping[str, Any]]) -> Call:
        body: Dict[str, Any] = {"text": text}
        if meta is not None:
            body["meta"] = dict(meta)
        return Call("POST", "/v1/memory/store", body, idempotent_store=True)

    @staticmethod
    def retrieve_call(query: str, top_k: Optional[int], min_score: Optional[float]) -> Call:
        body: Dict[str, Any] = {"query": query}
        if top_k is not None:
            body["top_k"] = top_k
        if min_score is not None:
            body["min_score"] = min_score
        return Call("POST", "/v1/memory/retrieve", body)

    HEALTH = Call("GET", "/v1/optimize/health")
    STATUS = Call("GET", "/v1/status")

    def headers_for(self, call: Call) -> Dict[str, str]:
        headers = {
            "Authorization": f"Bearer {self.api_key}",
            "User-Agent": USER_AGENT,
            "Accept": "application/json",
        }
        if call.body is not None:
            headers["Content-Type"] = "application/json"
        if call.idempotent_store:
            # One key for every attempt and hop of this call: a retried store is written once.
            headers["Idempotency-Key"] = str(uuid.uuid4())
        return headers

    @staticmethod
    def content_for(call: Call) -> Optional[bytes]:
        return None if call.body is None else json.dumps(call.body, ensure_ascii=False).encode("utf-8")

    # What to do with each attempt's outcome.

    def backoff(self, attempt: int) -> float:
        return float(self._random()) * min(RETRY_CAP, RETRY_BASE * 2.0 ** (attempt - 1))

    def begin(self, call: Call) -> Exchange:
        return Exchange(
            operation=f"{call.method} {call.path}",
            method=call.method,
            url=self.base_url + call.path,
            headers=self.headers_for(call),
            content=self.content_for(call),
        )

    def after_transport_error(self, ex: Exchange, error: Exception) -> Wait:
        """The wait before the next attempt, or raises when the retries are spent."""
        timed_out = isinstance(error, httpx.TimeoutException)
        reason = f"no answer within {self.timeout:g} s" if timed_out else describe_network_error(error)
        if ex.attempt <= self.max_retries:
            return self._retry(ex, self.backoff(ex.attempt), reason)
        tried = f" after {ex.attempt} attempts" if ex.attempt > 1 else ""
        if timed_out:
            raise APITimeoutError(
                f"{ex.operation} to {self.base_url}: {reason}{tried}. Raise the timeout if the service is slow.",
                code="timeout",
            ) from error
        raise APIConnectionError(
            f"{ex.operation} could not reach {self.base_url} ({reason}){tried}. Is the service running?",
            code="connection_error",
        ) from error

    def after_response(self, ex: Exchange, response: httpx.Response, model: Type[ModelT]) -> Union[ModelT, Wait]:
        """The parsed answer; a Wait before a retry or a redirect's next hop; raises for every other answer."""
        status = response.status_code
        request_id = response.headers.get("x-request-id")
        if 200 <= status < 300:
            return self.parse(ex.operation, response, model)
        if 300 <= status < 400:
            ex.url = self._follow(ex.operation, response, ex.hops + 1, request_id)
            ex.hops += 1
            ex.attempt -= 1  # a hop is not an attempt
            return Wait(0.0)
        body = error_body(response)
        if status in RETRYABLE_STATUS and ex.attempt <= self.max_retries:
            retry_after = retry_after_seconds(response.headers, body) if status == 503 else None
            delay = self.backoff(ex.attempt) if retry_after is None else min(retry_after, RETRY_AFTER_MAX)
            return self._retry(ex, delay, f"answered {status}")
        raise error_from_response(ex.operation, response, body, request_id, ex.attempt, (self.api_key,))

    @staticmethod
    def _retry(ex: Exchange, delay: float, reason: str) -> Wait:
        log.info("%s: %s; retrying in %.2f s", ex.operation, reason, delay)
        return Wait(delay)

    def _follow(self, operation: str, response: httpx.Response, hops: int, request_id: Optional[str]) -> str:
        status = response.status_code
        location = response.headers.get("location")
        secrets = (self.api_key,)
        suffix = request_suffix(request_id)
        if status not in FOLLOWED_REDIRECTS or not location:
            raise BrainError(
                f"{operation} answered {status}; only permanent redirects (301, 308) with a Location are followed. "
                f"Check the base URL (BRAIN_BASE_URL).{suffix}",
                status_code=status,
                request_id=request_id,
                code="redirect_not_followed",
            )
        target: str = urljoin(str(response.request.url), location)
        shown = redact(target, secrets)
        if not is_safe_url(target):
            raise BrainError(
                f"{operation} redirected ({status}) to {shown}, plain http off this machine; refused so the API key is "
                f"not sent unencrypted. Set BRAIN_BASE_URL to the service's https address.{suffix}",
                status_code=status,
                request_id=request_id,
                code="redirect_refused",
            )
        if hops > MAX_REDIRECTS:
            raise BrainError(
                f"{operation}: more than {MAX_REDIRECTS} redirects (last to {shown}); set BRAIN_BASE_URL to the "
                f"service's current address.{suffix}",
                status_code=status,
                request_id=request_id,
                code="too_many_redirects",
            )
        log.warning(
            "%s: moved permanently (%d) to %s; update BRAIN_BASE_URL to the new address", operation, status, shown
        )
        return target

    @staticmethod
    def parse(operation: str, response: httpx.Response, model: Type[ModelT]) -> ModelT:
        request_id = response.headers.get("x-request-id")
        try:
            data = response.json()
        except ValueError:
            raise BrainError(
                f"{operation} answered {response.status_code} with a body that is not JSON; is this a brain memory "
                f"service?{request_suffix(request_id)}",
                status_code=response.status_code,
                request_id=request_id,
                body=response.text,
                code="invalid_response",
            ) from None
        try:
            return model.model_validate(data)
        except PydanticValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise BrainError(
                f"{operation} answered a response this client cannot read ({where}: {first['msg']})"
                f"{request_suffix(request_id)}",
                status_code=response.status_code,
                request_id=request_id,
                body=data,
                code="invalid_response",
            ) from None


def request_suffix(request_id: Optional[str]) -> str:
    return f" (request {request_id})" if request_id else ""


def error_body(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def _error_field(body: Any, name: str) -> Any:
    error = body.get("error") if isinstance(body, dict) else None
    return error.get(name) if isinstance(error, dict) else None


def retry_after_seconds(headers: httpx.Headers, body: Any) -> Optional[float]:
    """From `retry-after-ms`, then `Retry-After` (seconds), then the body's `retry_after`."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                seconds = float(value) / scale
            except ValueError:
                continue
            if seconds >= 0:
                return seconds
    from_body = _error_field(body, "retry_after")
    if isinstance(from_body, (int, float)) and not isinstance(from_body, bool) and from_body >= 0:
        return float(from_body)
    return None


_BY_STATUS: Dict[int, Type[BrainError]] = {
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    400: ValidationError,
    413: ValidationError,
    415: ValidationError,
    422: ValidationError,
    502: ServiceUnavailableError,
    503: ServiceUnavailableError,
    504: ServiceUnavailableError,
}


def error_from_response(
    operation: str,
    response: httpx.Response,
    body: Any,
    request_id: Optional[str],
    attempts: int,
    secrets: tuple[str, ...],
) -> BrainError:
    status = response.status_code
    code = _error_field(body, "code")
    code = code if isinstance(code, str) and code else None
    said = _error_field(body, "message")
    said_id = _error_field(body, "request_id")
    request_id = request_id or (said_id if isinstance(said_id, str) else None)
    detail = f": {redact(said, secrets)}" if isinstance(said, str) and said else ""
    tried = f" after {attempts} attempts" if attempts > 1 else ""
    message = f"{operation} failed with {status}{' ' + code if code else ''}{tried}{detail}{request_suffix(request_id)}"
    fields: Dict[str, Any] = {"status_code": status, "request_id": request_id, "body": body, "code": code}
    if status == 429:
        return RateLimitError(message, retry_after=retry_after_seconds(response.headers, body), **fields)
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else BrainError)
    return cls(message, **fields)


def describe_network_error(error: Exception) -> str:
    if isinstance(error, httpx.ConnectError):
        return "connection refused" if _refused(error) else "could not connect"
    if isinstance(error, (httpx.RemoteProtocolError, httpx.ReadError)):
        return "connection closed by the other side"
    return type(error).__name__


def _refused(error: BaseException) -> bool:
    """ConnectionRefusedError anywhere in the chain (async wraps it as "All connection attempts failed")."""
    seen: Optional[BaseException] = error
    for _ in range(6):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False
