"""Turning a user's ``Provider`` into the secret-free ``ProviderSpec`` a workflow carries."""

from __future__ import annotations

import os
import sys
import threading

from rath._runtime.credentials import VAULT
from rath._runtime.settings import Settings
from rath.errors import ConfigError
from rath.llm._provider import Provider, ProviderSpec

_demo_notice_shown = threading.Event()


def provider_spec(provider: Provider, settings: Settings) -> ProviderSpec:
    """The :class:`ProviderSpec` for ``provider``; its key becomes a reference.

    With the embedded default and no credentials anywhere (no ``api_key``, ``api_key_env``,
    ``base_url`` or ``OPENAI_API_KEY``), an OpenAI provider is served by Rath's offline demo
    model, and a notice says so on stderr.

    Raises:
        ConfigError: ``api_key`` is set but runs go to a remote cluster, whose workers cannot
            receive it without writing it into workflow history.
    """
    kind = provider.provider_kind or "openai"
    ref: str | None = None
    if provider.api_key:
        if not settings.embedded:
            raise ConfigError(
                "Provider(api_key=...) cannot be sent to workers of a remote Temporal "
                f"({settings.address}): it would be written into workflow history. Set the key "
                "in the worker's environment (OPENAI_API_KEY, or Provider(api_key_env='NAME'))"
            )
        ref = VAULT.register(provider.api_key)
    elif provider.api_key_env:
        ref = f"env:{provider.api_key_env}"
    if (
        kind == "openai"
        and ref is None
        and provider.base_url is None
        and settings.embedded
        and not os.environ.get("OPENAI_API_KEY")
    ):
        kind = "demo"
        if not _demo_notice_shown.is_set():
            _demo_notice_shown.set()
            sys.stderr.write(
                "rath: no OPENAI_API_KEY and no Provider(base_url=...): using the offline demo "
                "model (scripted, not an LLM). Set OPENAI_API_KEY or base_url for a real model.\n"
            )
    return ProviderSpec(
        kind=kind,
        model=provider.model,
        base_url=provider.base_url,
        api_key_ref=ref,
        options=provider.sampling_options(),
        retry_max_attempts=provider.retry_max_attempts,
        retry_base_seconds=provider.retry_base_seconds,
        request_timeout=provider.request_timeout,
    )
