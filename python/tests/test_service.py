"""Both clients against the real `brain-mcp serve` (SQLite, 127.0.0.1), started by the test session."""

from __future__ import annotations

import uuid
from typing import Callable, Iterator

import pytest
from conftest import Client, Service, start_service

import brain_client as bc


def fresh(service: Service, make: Callable[..., Client]) -> Client:
    workspace = service.workspace(f"py-{uuid.uuid4().hex[:8]}")
    client = make(api_key=workspace["api_key"], base_url=service.url)
    client.workspace_id = workspace["workspace_id"]  # type: ignore[attr-defined]
    return client


async def test_store_merge_retrieve_health_status(service: Service, make: Callable[..., Client]) -> None:
    client = fresh(service, make)
    first = await client.store("Project Atlas stores its data in PostgreSQL 15 on the db-2 host.", {"source": "python"})
    assert (first.status, first.dedup.action, first.dedup.existing_id) == ("ok", "stored_new", None)
    assert first.workspace_id == client.workspace_id  # type: ignore[attr-defined]
    assert isinstance(first.memory_id, int) and 1 <= first.importance <= 10 and first.categories

    again = await client.store("Project Atlas keeps its data in PostgreSQL 15 on the db-2 host.")
    assert (again.dedup.action, again.dedup.existing_id, again.memory_id) == (
        "merged",
        first.memory_id,
        first.memory_id,
    )

    other = await client.store("Maria Lopez is the customer contact at Northwind.")
    found = await client.retrieve("where does Project Atlas keep its data?", top_k=2)
    assert found.memories[0].id == first.memory_id
    assert found.memories[0].meta.temporal.type == "persistent"
    assert found.memories[0].meta.model_extra is not None and found.memories[0].meta.model_extra["source"] == "python"
    assert all(0 <= m.score <= 1 and 0 <= m.similarity <= 1 for m in found.memories)
    assert other.memory_id != first.memory_id

    health = await client.health()
    assert health.signals.total_memories == 2 and 0 <= health.quality_score <= 100
    status = await client.status()
    assert (status.workspace_id, status.workspace_status, status.healthy) == (client.workspace_id, "active", True)  # type: ignore[attr-defined]
    assert status.model_extra is not None and status.model_extra["memory_count"] == 2


async def test_pii_is_rejected_and_nothing_is_stored(service: Service, make: Callable[..., Client]) -> None:
    client = fresh(service, make)
    with pytest.raises(bc.ValidationError) as caught:
        await client.store("My card number is 4111 1111 1111 1111, expiry 12/29.")
    assert caught.value.status_code == 422 and caught.value.code == "pii_detected"
    assert caught.value.pii_types == ["credit_card"]
    assert "4111" not in str(caught.value)
    assert (await client.health()).signals.total_memories == 0


async def test_a_suspended_workspace_is_refused_but_status_answers(
    service: Service, make: Callable[..., Client]
) -> None:
    client = fresh(service, make)
    service.admin("workspace", "set-status", str(client.workspace_id), "suspended")  # type: ignore[attr-defined]
    with pytest.raises(bc.PermissionDeniedError) as caught:
        await client.store("A fact while suspended.")
    assert caught.value.code == "workspace_suspended" and caught.value.request_id
    assert (await client.status()).workspace_status == "suspended"


async def test_a_wrong_key_is_an_authentication_error(service: Service, make: Callable[..., Client]) -> None:
    with pytest.raises(bc.AuthenticationError) as caught:
        await make(api_key="svc_ws_" + "0" * 32, base_url=service.url).status()
    assert caught.value.status_code == 401 and caught.value.code == "invalid_api_key"


async def test_a_key_with_an_older_prefix_works(service: Service, make: Callable[..., Client]) -> None:
    workspace = service.workspace("py-legacy")
    older = "sk_live_" + uuid.uuid4().hex
    service.admin("key", "import", str(workspace["workspace_id"]), "-", stdin=older + "\n")
    status = await make(api_key=older, base_url=service.url).status()
    assert status.workspace_id == workspace["workspace_id"] and status.api_key_prefix == older[:11]


@pytest.fixture(scope="module")
def limited() -> Iterator[Service]:
    s = start_service({"BRAIN_RATE_LIMIT_RPS": "0.01", "BRAIN_RATE_LIMIT_BURST": "2"})
    yield s
    s.stop()


async def test_the_rate_limit_is_a_rate_limit_error_with_retry_after(
    limited: Service, make: Callable[..., Client]
) -> None:
    client = fresh(limited, make)
    with pytest.raises(bc.RateLimitError) as caught:
        for _ in range(4):
            await client.status()
    assert caught.value.status_code == 429 and caught.value.retry_after is not None and caught.value.retry_after > 0
