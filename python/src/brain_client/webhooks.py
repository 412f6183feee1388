"""Verifying a webhook delivery from `brain-mcp serve` (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
`webhook-signature`, the endpoint's `whsec_` secret), wrapping the `standardwebhooks` package.

Install with the extra: ``pip install "brain-client[webhooks]"``.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Union

from pydantic import BaseModel, ConfigDict

INSTALL = 'pip install "brain-client[webhooks]"'


class WebhookVerificationError(Exception):
    """The delivery is not from the holder of the secret, was altered, or is too old (more than 5 minutes)."""


class WebhookEvent(BaseModel):
    """A verified event: ``type`` (e.g. ``key.revoked``), ``timestamp`` (ISO 8601 UTC) and its ``data``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    type: str
    timestamp: str
    data: Dict[str, Any]


def verify_webhook(payload: Union[bytes, str], headers: Mapping[str, str], secret: str) -> WebhookEvent:
    """Checks a delivery's signature and age with the endpoint's secret and returns its event.

    ``payload`` is the raw request body exactly as received (a re-serialized body no longer matches its signature);
    ``headers`` any mapping of the request's headers (names in any case). Raises WebhookVerificationError for a
    delivery that must be refused.
    """
    try:
        from standardwebhooks.webhooks import Webhook
    except ImportError as err:  # pragma: no cover - depends on what is installed
        raise ImportError(f"verifying webhooks needs the standardwebhooks package; install it with: {INSTALL}") from err
    wanted = {k.lower(): v for k, v in headers.items() if k.lower().startswith("webhook-")}
    try:
        event = Webhook(secret).verify(payload, wanted)
    except Exception as err:  # the library raises its own error, and ValueError on malformed headers
        raise WebhookVerificationError(f"the webhook delivery did not verify: {err}") from err
    return WebhookEvent.model_validate(event)
