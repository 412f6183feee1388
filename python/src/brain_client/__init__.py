"""Python client for the brain memory service (SPEC.md's four operations): `Brain` and `AsyncBrain`."""

from ._client import AsyncBrain, Brain
from ._constants import DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
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
from ._models import (
    Dedup,
    HealthReport,
    HealthSignals,
    RetrievedMemory,
    RetrievedMeta,
    RetrievedTemporal,
    RetrieveResult,
    StoreResult,
    Temporal,
    WorkspaceStatus,
)
from ._version import __version__

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "APIConnectionError",
    "APITimeoutError",
    "AsyncBrain",
    "AuthenticationError",
    "Brain",
    "BrainError",
    "Dedup",
    "HealthReport",
    "HealthSignals",
    "InternalServerError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RetrieveResult",
    "RetrievedMemory",
    "RetrievedMeta",
    "RetrievedTemporal",
    "ServiceUnavailableError",
    "StoreResult",
    "Temporal",
    "ValidationError",
    "WorkspaceStatus",
    "__version__",
]
