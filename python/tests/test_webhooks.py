"""The webhook helper (brain_client.webhooks, wrapping standardwebhooks) on a real delivery from `brain-mcp serve`."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from conftest import Service, start_service

from brain_client.webhooks import WebhookEvent, WebhookVerificationError, verify_webhook

Delivery = Tuple[bytes, Dict[str, str]]


@pytest.fixture(scope="module")
def receiver() -> Iterator[Tuple[str, List[Delivery]]]:
    got: List[Delivery] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            got.append((body, dict(self.headers.items())))
            self.send_response(204)
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/hook", got
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def webhook_service() -> Iterator[Service]:
    service = start_service(
        {"BRAIN_EMBEDDER": "lexical", "BRAIN_WEBHOOK_ALLOW_PRIVATE": "1", "BRAIN_WEBHOOK_POLL_MS": "100"}
    )
    yield service
    service.stop()


def test_a_real_delivery_verifies_and_a_tampered_one_does_not(
    webhook_service: Service, receiver: Tuple[str, List[Delivery]]
) -> None:
    url, got = receiver
    workspace = webhook_service.workspace("py-webhooks")
    endpoint = webhook_service.admin(
        "webhook", "add", "--workspace", str(workspace["workspace_id"]), "--url", url, "--events", "lifecycle"
    )
    secret = endpoint["secret"]
    assert secret.startswith("whsec_")
    webhook_service.admin("workspace", "set-status", str(workspace["workspace_id"]), "suspended")
    deadline = time.monotonic() + 20
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    assert got, "no delivery arrived"
    body, headers = got[0]

    event = verify_webhook(body, headers, secret)
    assert isinstance(event, WebhookEvent)
    assert event.type == "workspace.suspended"
    assert event.data["workspace_id"] == workspace["workspace_id"]
    assert event.data["status"] == "suspended" and event.data["previous_status"] == "active"
    assert verify_webhook(body.decode(), {k.upper(): v for k, v in headers.items()}, secret).type == event.type

    with pytest.raises(WebhookVerificationError):
        verify_webhook(body.replace(b"suspended", b"active", 1), headers, secret)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(body, headers, "whsec_" + "A" * 43 + "=")
    with pytest.raises(WebhookVerificationError):
        verify_webhook(body, {**headers, "webhook-signature": "garbage"}, secret)
