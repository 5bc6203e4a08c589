"""Provider <-> ProviderSpec: the secret-free spec a workflow carries, and back on the worker.

:func:`provider_spec` is the client side (it registers an in-process key in the vault and picks
the offline demo model when nothing is configured); :func:`spec_from_provider` and
:func:`provider_from_spec` are pure, for workflow code and workers.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from typing import Any

from rath.config import default_store
from rath.errors import ConfigError
from rath.llm._azure import AZURE_KEY_ENVS, azure_style
from rath.llm._provider import Provider, ProviderSpec, default_key_env
from rath.llm.credentials import VAULT
from rath.settings import Settings

_demo_notice_shown = threading.Event()


def provider_spec(provider: Provider, settings: Settings) -> ProviderSpec:
    """The :class:`ProviderSpec` for ``provider``; its key becomes a reference.

    With the embedded default and no credentials anywhere (no ``api_key``, ``api_key_env``,
    ``base_url``, ``OPENAI_API_KEY`` or ``OPENAI_BASE_URL``), an OpenAI provider is served by
    Rath's offline demo model, and a notice says so on stderr.

    Raises:
        ConfigError: ``api_key`` is set but runs go to a remote cluster, whose workers cannot
            receive it without writing it into workflow history.
    """
    provider = with_config_defaults(provider, settings)
    ref: str | None = None
    if provider.api_key:
        if not settings.embedded:
            env = default_key_env(provider.provider_kind or "openai") or "the provider's key"
            raise ConfigError(
                "Provider(api_key=...) cannot be sent to workers of a remote Temporal "
                f"({settings.address}): it would be written into workflow history. Set the key "
                f"in the worker's environment ({env}, or Provider(api_key_env='NAME'))"
            )
        ref = VAULT.register(provider.api_key)
    spec = spec_from_provider(provider, api_key_ref=ref, demo_fallback=demo_fallback(settings))
    if spec.kind == "demo" and provider.provider_kind != "demo" and not _demo_notice_shown.is_set():
        _demo_notice_shown.set()
        sys.stderr.write(
            "rath: no OPENAI_API_KEY, OPENAI_BASE_URL or Provider(base_url=...): using the "
            "offline demo model (scripted, not an LLM). Set OPENAI_API_KEY (OpenAI), or "
            "OPENAI_BASE_URL (a compatible server, key optional), for a real model.\n"
        )
    return spec


def with_config_defaults(provider: Provider, settings: Settings) -> Provider:
    """``provider`` with what OpenRath's config file adds (embedded default only).

    Precedence as in OpenRath: the provider's own fields, then the environment, then the
    config file's provider of the same kind (its model, base URL and, when neither the
    provider nor the environment has one, its key). Remote workers read their own
    environment and config file instead.
    """
    kind = provider.provider_kind or "openai"
    if not settings.embedded or kind not in ("openai", "anthropic"):
        return provider
    entry = default_store().find_provider_by_kind(kind)
    if entry is None:
        return provider
    prefix = kind.upper()
    keyless = not (provider.api_key or provider.api_key_env or provider.api_key_ref)
    fields: dict[str, Any] = {}
    if keyless and entry.api_key and not os.environ.get(f"{prefix}_API_KEY"):
        fields["api_key"] = entry.api_key
    if provider.base_url is None and entry.base_url and not os.environ.get(f"{prefix}_BASE_URL"):
        fields["base_url"] = entry.base_url
    if provider.model is None and entry.model and not os.environ.get(f"{prefix}_DEFAULT_MODEL"):
        fields["model"] = entry.model
    return dataclasses.replace(provider, **fields) if fields else provider


def demo_fallback(settings: Settings) -> bool:
    """Whether a credential-less OpenAI provider gets the offline demo model here.

    Only on the embedded default with neither ``OPENAI_API_KEY`` nor ``OPENAI_BASE_URL`` set:
    a base URL alone means a keyless compatible server (Ollama, vLLM), never the demo.
    """
    return settings.embedded and not any(
        os.environ.get(name) for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    )


def spec_from_provider(
    provider: Provider, *, api_key_ref: str | None = None, demo_fallback: bool
) -> ProviderSpec:
    """The spec for a provider whose key (if any) is already a reference. Pure: no I/O.

    Workflow code uses this directly (it cannot read the environment or the vault).

    Args:
        provider: The provider.
        api_key_ref: The reference for ``provider.api_key`` (ignored when it has none).
        demo_fallback: Serve a credential-less OpenAI provider with the offline demo model.

    Raises:
        ConfigError: ``provider.api_key`` is set but no reference was given for it.
    """
    first = provider.api_key_ref
    if provider.api_key:
        if api_key_ref is None:
            raise ConfigError(
                "Provider(api_key=...) cannot be used inside workflow code: it would be "
                "written into workflow history. Pass the provider into the Workflow's "
                "constructor, or use Provider(api_key_env='NAME') and set NAME on the worker"
            )
        first = api_key_ref
    refs = [first] if first else []
    refs += [f"env:{name}" for name in provider.key_env_names() if f"env:{name}" not in refs]
    kind = provider.provider_kind or "openai"
    if kind == "openai" and not refs and azure_style(provider.base_url) is not None:
        refs = [f"env:{name}" for name in (*AZURE_KEY_ENVS, "OPENAI_API_KEY")]
    if kind == "openai" and not refs and provider.base_url is None and demo_fallback:
        kind = "demo"
    return ProviderSpec(
        kind=kind,
        model=provider.model,
        base_url=provider.base_url,
        api_key_ref=refs[0] if refs else None,
        api_key_fallback_refs=tuple(refs[1:]),
        options=provider.sampling_options(),
        retry_max_attempts=provider.retry_max_attempts,
        retry_base_seconds=provider.retry_base_seconds,
        request_timeout=provider.request_timeout,
        budget_total_tokens=provider.budget_total_tokens,
    )


def provider_from_spec(spec: ProviderSpec) -> Provider:
    """The worker-side ``Provider`` for a shipped spec (its keys stay references)."""
    fallbacks = tuple(ref.removeprefix("env:") for ref in spec.api_key_fallback_refs)
    return Provider(
        model=spec.model,
        base_url=spec.base_url,
        api_key_ref=spec.api_key_ref,
        api_key_env=fallbacks or None,
        provider_kind=spec.kind,
        extra_create_args=dict(spec.options),
        retry_max_attempts=spec.retry_max_attempts,
        retry_base_seconds=spec.retry_base_seconds,
        request_timeout=spec.request_timeout,
        budget_total_tokens=spec.budget_total_tokens,
    )
