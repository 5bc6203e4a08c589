"""Reading an OpenAI-compatible endpoint's HTTP errors: the message and the asked-for delay.

Shared by the LLM activity and the memory embedder, so both honour ``Retry-After`` alike.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any

import openai


def error_message(exc: openai.APIStatusError) -> str:
    """The server's own error message when its body has one, else the SDK's."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return exc.message


def retry_after_seconds(response: Any) -> float | None:
    """The delay asked for by ``retry-after-ms`` or ``Retry-After`` (seconds or a date)."""
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(when.timestamp() - time.time(), 0.0)
