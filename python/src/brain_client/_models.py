"""Typed answers. Each model requires exactly the fields SPEC.md's tables list, keeps every other field the server
sends (`model_extra`), and reads enumerations (workspace_status, dedup.action, temporal.type) as plain strings, so
a server that adds a field or a value never breaks a caller. Ids are integers."""

from __future__ import annotations

from typing import Annotated, List, Optional

from pydantic import BaseModel, ConfigDict, Strict, StrictBool, StrictInt, StrictStr

Number = Annotated[float, Strict()]
"""A JSON number (an integer is accepted too), never a string."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Temporal(_Model):
    type: StrictStr
    """`persistent` or `time_bound` from the reference service; any string from others."""
    valid_until: Optional[StrictStr]
    """ISO 8601 UTC; None for persistent memories."""


class Dedup(_Model):
    action: StrictStr
    """`stored_new` or `merged` from the reference service."""
    existing_id: Optional[StrictInt]


class StoreResult(_Model):
    status: StrictStr
    memory_id: StrictInt
    workspace_id: StrictInt
    dedup: Dedup
    importance: StrictInt
    categories: List[StrictStr]
    temporal: Temporal


class RetrievedTemporal(_Model):
    """The specification promises only `type` here; the reference service adds `valid_until`."""

    type: StrictStr


class RetrievedMeta(_Model):
    """The caller's meta keys (in `model_extra`) beside the service's `temporal` (and, from the reference service,
    `categories`)."""

    temporal: RetrievedTemporal


class RetrievedMemory(_Model):
    id: StrictInt
    text: StrictStr
    score: Number
    """Hybrid score; results are ranked by it."""
    similarity: Number
    """Raw semantic similarity; differs from score by design."""
    importance: StrictInt
    meta: RetrievedMeta


class RetrieveResult(_Model):
    memories: List[RetrievedMemory]


class HealthSignals(_Model):
    total_memories: StrictInt


class HealthReport(_Model):
    quality_score: Number
    """0 to 100."""
    signals: HealthSignals


class WorkspaceStatus(_Model):
    workspace_id: StrictInt
    workspace_name: StrictStr
    workspace_status: StrictStr
    """`active`, `suspended`, `limit_reached` (or `deleted`) from the reference service; any string from others."""
    plan_name: StrictStr
    billing_cycle: StrictStr
    api_key_id: StrictInt
    api_key_prefix: StrictStr
    healthy: StrictBool
    server_time: StrictStr


__all__ = [
    "Dedup",
    "HealthReport",
    "HealthSignals",
    "RetrieveResult",
    "RetrievedMemory",
    "RetrievedMeta",
    "RetrievedTemporal",
    "StoreResult",
    "Temporal",
    "WorkspaceStatus",
]
