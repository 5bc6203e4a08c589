"""What OpenRath's direct clients share: where to call, with which key, and their retries.

The direct clients (chat, embeddings, images) run in the caller's process, so they resolve a
key the way OpenRath did: the provider's, else the environment's, else the config file's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from rath.config import default_store
from rath.errors import ConfigError
from rath.llm._http import CallSite
from rath.llm.provider import Provider
from rath.llm.retry import retry_classified

T = TypeVar("T")

DEFAULT_TIMEOUT = 600.0


class Retrying(Protocol):
    """A provider's retry settings (``None``: OpenRath's defaults)."""

    @property
    def retry_max_attempts(self) -> int | None: ...

    @property
    def retry_base_seconds(self) -> float | None: ...


def require_credentials(what: str, key: str | None, base_url: str | None, prefix: str) -> None:
    """Refuse a client with no key and no server to send none to.

    Raises:
        ConfigError: Neither is given nor in ``<prefix>_API_KEY``/``<prefix>_BASE_URL`` (a
            ``ValueError``, worded as OpenRath's: "No API key found", "No Anthropic api_key").
    """
    if key or base_url or os.environ.get(f"{prefix}_API_KEY"):
        return
    if os.environ.get(f"{prefix}_BASE_URL"):
        return
    # OpenRath's own words per vendor (its tests match them), then the fix.
    head = f"No {what} api_key found" if prefix == "ANTHROPIC" else f"No API key found for {what}"
    raise ConfigError(
        f"{head}: set api_key=... or {prefix}_API_KEY, or point base_url at a compatible server"
    )


@dataclass(frozen=True)
class DirectTarget:
    """A direct chat client's endpoint, key, default model and error-message site."""

    base_url: str | None
    key: str | None = field(repr=False)
    model: str | None
    timeout: float
    site: CallSite


def direct_target(
    provider: Provider,
    kind: str,
    *,
    label: str,
    key_envs: Callable[[str | None], Sequence[str]],
    url_envs: Sequence[str] = (),
) -> DirectTarget:
    """Where ``provider`` is called from plain Python.

    Each setting comes from the provider's fields, then the environment (the URL variables
    ``url_envs`` names, default ``<KIND>_BASE_URL``; the key variables ``key_envs(base_url)``
    names; ``<KIND>_DEFAULT_MODEL``), then the config file's provider of ``kind``.

    Raises:
        ConfigError: No key and no base URL anywhere.
    """
    prefix = kind.upper()
    configured = default_store().find_provider_by_kind(kind)
    base_url = (
        provider.base_url
        or first_env(url_envs or (f"{prefix}_BASE_URL",))
        or (configured.base_url if configured else None)
    )
    key = (
        provider.api_key
        or first_env(key_envs(base_url))
        or (configured.api_key if configured else None)
    )
    require_credentials(label, key, base_url, prefix)
    model = (
        provider.model
        or os.environ.get(f"{prefix}_DEFAULT_MODEL")
        or (configured.model if configured else None)
    )
    timeout = provider.request_timeout or DEFAULT_TIMEOUT
    secret = key or ""
    site = CallSite(
        where=base_url or label,
        model=model or "",
        timeout=timeout,
        redact=lambda text: text.replace(secret, "[redacted]") if len(secret) >= 8 else text,
    )
    return DirectTarget(base_url, key, model, timeout, site)


def first_env(names: Sequence[str]) -> str | None:
    """The value of the first of ``names`` set (non-blank) in the environment, stripped."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def retried(provider: Retrying, call: Callable[[], T]) -> T:
    """``call`` with ``provider``'s retries of the errors worth retrying."""
    return retry_classified(
        call,
        max_attempts=provider.retry_max_attempts,
        base_seconds=provider.retry_base_seconds,
    )
