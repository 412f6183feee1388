"""What a real service won't do on demand, scripted: unavailable answers, resets, slow answers, redirects, rate
limits; and the client's own rules (keys, addresses, headers, logs). Every scenario runs on Brain and AsyncBrain."""

from __future__ import annotations

import json
import logging
import platform
from typing import Callable

import pytest
from conftest import KEY, Client, Received, Reply, ScriptedServer, wire_fixtures

import brain_client as bc

STORE = next(f for f in wire_fixtures("minimal") if f["name"] == "minimal/store.json")
STATUS = next(f for f in wire_fixtures("minimal") if f["name"] == "minimal/status.json")


def ok(fixture: dict) -> Reply:  # type: ignore[type-arg]
    return Reply(fixture["status"], dict(fixture["headers"]), fixture["body"])


def unavailable(retry_after: str = "0") -> Reply:
    body = {
        "error": {
            "type": "service_unavailable_error",
            "code": "store_unavailable",
            "message": "busy",
            "request_id": "req_x",
        }
    }
    return Reply(503, {"content-type": "application/json", "retry-after": retry_after}, body)


async def test_503_then_success_is_retried_with_one_idempotency_key(
    server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.script = lambda _req, n: unavailable() if n < 3 else ok(STORE)
    stored = await make(api_key=KEY, base_url=server.url).store("The deploy runs on Fridays.")
    assert stored.memory_id == STORE["body"]["memory_id"]
    assert len(server.received) == 3
    keys = {r.headers["idempotency-key"] for r in server.received}
    assert len(keys) == 1 and keys != {""}


async def test_503_past_the_retries_is_service_unavailable(server: ScriptedServer, make: Callable[..., Client]) -> None:
    server.script = lambda _req, _n: unavailable()
    with pytest.raises(bc.ServiceUnavailableError) as caught:
        await make(api_key=KEY, base_url=server.url, max_retries=2).status()
    assert len(server.received) == 3
    assert caught.value.status_code == 503 and caught.value.code == "store_unavailable"


async def test_each_store_call_has_its_own_idempotency_key(server: ScriptedServer, make: Callable[..., Client]) -> None:
    server.script = lambda _req, _n: ok(STORE)
    client = make(api_key=KEY, base_url=server.url)
    await client.store("one")
    await client.store("two")
    assert server.received[0].headers["idempotency-key"] != server.received[1].headers["idempotency-key"]


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 429, 500])
async def test_other_failures_are_never_retried(
    status: int, server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.script = lambda _req, _n: Reply(
        status, {"content-type": "application/json", "retry-after": "0"}, {"error": {}}
    )
    with pytest.raises(bc.BrainError) as caught:
        await make(api_key=KEY, base_url=server.url).status()
    assert caught.value.status_code == status
    assert len(server.received) == 1


async def test_a_reset_socket_is_retried_then_succeeds(server: ScriptedServer, make: Callable[..., Client]) -> None:
    server.script = lambda _req, n: Reply(reset=True) if n == 1 else ok(STATUS)
    status = await make(api_key=KEY, base_url=server.url).status()
    assert status.workspace_id == STATUS["body"]["workspace_id"]
    assert len(server.received) == 2


async def test_resets_past_the_retries_are_a_connection_error(
    server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.script = lambda _req, _n: Reply(reset=True)
    with pytest.raises(bc.APIConnectionError) as caught:
        await make(api_key=KEY, base_url=server.url, max_retries=1).status()
    assert caught.value.status_code is None
    assert len(server.received) == 2


async def test_a_slow_answer_past_the_timeout_is_a_timeout_error(
    server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.script = lambda _req, _n: Reply(delay=1.0, body=STATUS["body"])
    with pytest.raises(bc.APITimeoutError) as caught:
        await make(api_key=KEY, base_url=server.url, timeout=0.2, max_retries=0).status()
    assert caught.value.status_code is None and caught.value.code == "timeout"


async def test_nothing_listening_is_a_connection_error(make: Callable[..., Client]) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(bc.APIConnectionError) as caught:
        await make(api_key=KEY, base_url=f"http://127.0.0.1:{port}", max_retries=0).status()
    assert "connection refused" in str(caught.value)


async def test_301_to_another_port_is_followed_with_method_body_and_key(
    server: ScriptedServer, make: Callable[..., Client], caplog: pytest.LogCaptureFixture
) -> None:
    new_home = ScriptedServer()
    try:
        new_home.script = lambda _req, _n: ok(STORE)
        server.script = lambda req, _n: Reply(301, {"location": f"{new_home.url}{req.path}"}, "")
        with caplog.at_level(logging.WARNING, logger="brain_client"):
            stored = await make(api_key=KEY, base_url=server.url).store("Moved fact.", {"source": "py"})
        assert stored.memory_id == STORE["body"]["memory_id"]
        old, new = server.received[0], new_home.received[0]
        assert (new.method, new.path, new.body) == (old.method, old.path, old.body)
        assert new.headers["authorization"] == f"Bearer {KEY}"
        assert new.headers["idempotency-key"] == old.headers["idempotency-key"]
        assert new_home.url in caplog.text and KEY not in caplog.text
    finally:
        new_home.close()


async def test_a_redirect_to_plain_http_off_this_machine_is_refused(
    server: ScriptedServer, make: Callable[..., Client]
) -> None:
    server.script = lambda _req, _n: Reply(301, {"location": "http://brain.example.com/v1/status"}, "")
    with pytest.raises(bc.BrainError) as caught:
        await make(api_key=KEY, base_url=server.url).status()
    assert caught.value.code == "redirect_refused"
    assert len(server.received) == 1


async def test_redirect_loops_stop_after_three_hops(server: ScriptedServer, make: Callable[..., Client]) -> None:
    server.script = lambda req, _n: Reply(308, {"location": req.path}, "")
    with pytest.raises(bc.BrainError) as caught:
        await make(api_key=KEY, base_url=server.url).status()
    assert caught.value.code == "too_many_redirects"
    assert len(server.received) == 4


async def test_302_is_not_followed(server: ScriptedServer, make: Callable[..., Client]) -> None:
    server.script = lambda _req, _n: Reply(302, {"location": "/elsewhere"}, "")
    with pytest.raises(bc.BrainError) as caught:
        await make(api_key=KEY, base_url=server.url).status()
    assert caught.value.code == "redirect_not_followed"


async def test_429_carries_retry_after_and_is_not_retried(server: ScriptedServer, make: Callable[..., Client]) -> None:
    body = {
        "error": {
            "type": "rate_limit_error",
            "code": "rate_limited",
            "message": "slow down",
            "request_id": "req_1",
            "retry_after": 7,
        }
    }
    server.script = lambda _req, _n: Reply(429, {"content-type": "application/json", "retry-after": "3"}, body)
    with pytest.raises(bc.RateLimitError) as caught:
        await make(api_key=KEY, base_url=server.url).status()
    assert caught.value.retry_after == 3.0  # the header wins over the body
    assert len(server.received) == 1


async def test_headers_on_the_wire(server: ScriptedServer, make: Callable[..., Client]) -> None:
    server.script = lambda _req, _n: ok(STORE)
    await make(api_key=KEY, base_url=server.url).store("A fact.", {"k": 1})
    req: Received = server.received[0]
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.headers["user-agent"] == f"brain-client/{bc.__version__} python/{platform.python_version()}"
    assert req.headers["content-type"] == "application/json"
    assert json.loads(req.body) == {"text": "A fact.", "meta": {"k": 1}}


async def test_retrieve_sends_only_what_was_given(server: ScriptedServer, make: Callable[..., Client]) -> None:
    server.script = lambda _req, _n: Reply(body={"memories": []})
    client = make(api_key=KEY, base_url=server.url)
    await client.retrieve("q")
    await client.retrieve("q", top_k=3, min_score=0.25)
    assert [json.loads(r.body) for r in server.received] == [
        {"query": "q"},
        {"query": "q", "top_k": 3, "min_score": 0.25},
    ]


async def test_logs_never_show_the_key(
    server: ScriptedServer, make: Callable[..., Client], caplog: pytest.LogCaptureFixture
) -> None:
    server.script = lambda _req, n: (
        unavailable()
        if n == 1
        else Reply(401, {"content-type": "application/json"}, {"error": {"message": f"bad key {KEY}"}})
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(bc.AuthenticationError) as caught:
        await make(api_key=KEY, base_url=server.url).status()
    assert "retrying" in caplog.text
    assert KEY not in caplog.text and KEY not in str(caught.value)


def test_no_key_is_an_authentication_error_at_construction(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BRAIN_API_KEY", raising=False)
    cls = bc.Brain if kind == "sync" else bc.AsyncBrain
    with pytest.raises(bc.AuthenticationError) as caught:
        cls()
    assert caught.value.code == "missing_api_key" and caught.value.status_code is None


def test_key_and_address_come_from_the_environment(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAIN_API_KEY", KEY)
    monkeypatch.setenv("BRAIN_BASE_URL", "https://brain.example.com/")
    client = (bc.Brain if kind == "sync" else bc.AsyncBrain)()
    assert (client.api_key, client.base_url) == (KEY, "https://brain.example.com")
    monkeypatch.delenv("BRAIN_BASE_URL")
    assert (bc.Brain if kind == "sync" else bc.AsyncBrain)().base_url == bc.DEFAULT_BASE_URL


@pytest.mark.parametrize("url", ["http://brain.example.com", "http://10.0.0.5:8787", "ftp://127.0.0.1"])
def test_plain_http_off_this_machine_is_refused(kind: str, url: str) -> None:
    with pytest.raises(bc.BrainError) as caught:
        (bc.Brain if kind == "sync" else bc.AsyncBrain)(api_key=KEY, base_url=url)
    assert caught.value.code in ("insecure_base_url", "invalid_base_url")


def test_defaults_are_the_specifications() -> None:
    assert (bc.DEFAULT_TIMEOUT, bc.DEFAULT_MAX_RETRIES) == (30.0, 2)
    client = bc.Brain(api_key=KEY)
    assert (client.timeout, client.max_retries) == (30.0, 2)
    client.close()
