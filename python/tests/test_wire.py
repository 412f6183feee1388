"""Both clients against a server that answers exactly as SPEC.md's tables (test/fixtures/wire, shared with the
TypeScript tests): nothing beyond the specification's fields is needed, every other field is kept, unknown
enumeration values come through as strings, and every error answer maps by its status."""

from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Tuple, Union

import pytest
from conftest import KEY, Client, ScriptedServer, wire_fixtures

import brain_client as bc

ANSWERS = wire_fixtures("minimal") + wire_fixtures("extended")


def as_json(model: Any) -> Any:
    return model.model_dump(mode="json")


@pytest.mark.parametrize("fixture", ANSWERS, ids=[f["name"] for f in ANSWERS])
async def test_answer_is_read_whole(
    fixture: Dict[str, Any], server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.play(fixture)
    result = await make(api_key=KEY, base_url=server.url, max_retries=0).call(fixture["operation"])
    assert as_json(result) == fixture["body"]


def test_extended_fields_and_values_are_kept_as_attributes_and_strings() -> None:
    by_op = {f["operation"]: f["body"] for f in wire_fixtures("extended")}
    status = bc.WorkspaceStatus.model_validate(by_op["status"])
    assert status.workspace_status == "archived"
    assert status.model_extra is not None and status.model_extra["region"] == "eu-west"
    stored = bc.StoreResult.model_validate(by_op["store"])
    assert (stored.dedup.action, stored.temporal.type) == ("updated", "ephemeral")
    assert stored.model_extra is not None and stored.model_extra["request_cost"] == {"units": 1}
    memory = bc.RetrieveResult.model_validate(by_op["retrieve"]).memories[0]
    assert memory.meta.temporal.type == "ephemeral"
    assert memory.meta.model_extra is not None and memory.meta.model_extra["source"] == "chat"


def field_paths(value: Any, prefix: Tuple[Union[str, int], ...] = ()) -> List[Tuple[Union[str, int], ...]]:
    if isinstance(value, list):
        return field_paths(value[0], (*prefix, 0)) if value else []
    if not isinstance(value, dict):
        return []
    return [p for key, child in value.items() for p in [(*prefix, key), *field_paths(child, (*prefix, key))]]


def without(value: Any, path: Tuple[Union[str, int], ...]) -> Any:
    copied = copy.deepcopy(value)
    parent = copied
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    return copied


MISSING = [(f, p) for f in wire_fixtures("minimal") for p in field_paths(f["body"])]


@pytest.mark.parametrize("fixture,path", MISSING, ids=[f"{f['name']}-{'.'.join(map(str, p))}" for f, p in MISSING])
async def test_every_field_of_a_minimal_answer_is_required(
    fixture: Dict[str, Any], path: Tuple[Union[str, int], ...], server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.play({**fixture, "body": without(fixture["body"], path)})
    with pytest.raises(bc.BrainError) as caught:
        await make(api_key=KEY, base_url=server.url, max_retries=0).call(fixture["operation"])
    assert caught.value.code == "invalid_response"
    assert str(path[-1]) in str(caught.value)


ERROR_CLASS = {
    401: bc.AuthenticationError,
    403: bc.PermissionDeniedError,
    404: bc.NotFoundError,
    422: bc.ValidationError,
    429: bc.RateLimitError,
    503: bc.ServiceUnavailableError,
}
ERRORS = wire_fixtures("errors")


@pytest.mark.parametrize("fixture", ERRORS, ids=[f["name"] for f in ERRORS])
async def test_error_answer_maps_by_status(
    fixture: Dict[str, Any], server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.play(fixture)
    with pytest.raises(bc.BrainError) as caught:
        await make(api_key=KEY, base_url=server.url, max_retries=0).status()
    error = caught.value
    assert isinstance(error, ERROR_CLASS.get(fixture["status"], bc.BrainError))
    assert error.status_code == fixture["status"]
    said = fixture["body"].get("error", {}) if isinstance(fixture["body"], dict) else {}
    assert error.code == said.get("code")
    assert error.request_id == fixture["headers"].get("x-request-id", said.get("request_id"))
    if fixture["status"] == 429:
        assert isinstance(error, bc.RateLimitError)
        assert error.retry_after == float(fixture["headers"]["retry-after"])
    if said.get("code") == "pii_detected":
        assert isinstance(error, bc.ValidationError) and error.pii_types == said["pii_types"]
    assert KEY not in str(error)
