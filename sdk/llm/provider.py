"""``Provider`` (a user's, secrets included) and ``ProviderSpec`` (what travels).

A spec holds keys as ``env:NAME``/``local:<token>`` references only a worker resolves
(docs/providers.md, "Credentials and fallback keys").
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from rath.config import ConfigStore, default_store
from rath.errors import ConfigError
from rath.llm._azure import AZURE_KEY_ENVS, azure_style
from rath.llm.credentials import VAULT
from rath.settings import Settings

ProviderKind = str
"""A chat-client kind: built in, or registered with ``register_chat_client``."""

# Known kinds -> the variable a worker reads the key from when a provider names none.
# Global state (one table per process): register_chat_client adds kinds.
_KINDS: dict[ProviderKind, str | None] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "demo": None,
}


@dataclass(frozen=True, kw_only=True, slots=True)
class Provider:
    """A model endpoint and its sampling preferences (OpenRath's ``Provider`` fields).

    ``model="anthropic:claude-..."`` picks the kind too (a registered kind is a prefix; other
    colons, as in ``"llama3:8b"``, are part of the name). ``api_key`` stays in this process;
    ``api_key_env`` names the worker's variable(s), tried in turn on 401/403. The fields, and
    what Anthropic does with OpenAI's sampling fields: docs/providers.md.
    """

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    api_key_env: str | Sequence[str] | None = None
    api_key_ref: str | None = field(default=None, repr=False)
    provider_kind: ProviderKind | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_completion_tokens: int | None = None
    max_tokens: int | None = None
    stop: str | list[str] | None = None
    n: int | None = None
    seed: int | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    response_format: dict[str, Any] | None = None
    logit_bias: dict[str, int] | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    reasoning_effort: str | None = None
    verbosity: str | None = None
    metadata: dict[str, str] | None = None
    user: str | None = None
    store: bool | None = None
    service_tier: str | None = None
    extra_create_args: Mapping[str, Any] = field(default_factory=dict)
    retry_max_attempts: int | None = None
    retry_base_seconds: float | None = None
    request_timeout: float | None = None
    budget_total_tokens: int | None = None
    on_budget_exceeded: Callable[[Any, Any], None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.api_key_env is not None and not isinstance(self.api_key_env, str):
            names = tuple(self.api_key_env)
            single = names[0] if len(names) == 1 else None
            object.__setattr__(self, "api_key_env", single or names or None)
        kind, model = split_model(self.model)
        if kind is None:
            return
        if self.provider_kind not in (None, kind):
            raise ConfigError(
                f"Provider(model={self.model!r}) names kind {kind!r} but provider_kind is "
                f"{self.provider_kind!r}; drop one of them"
            )
        object.__setattr__(self, "provider_kind", kind)
        object.__setattr__(self, "model", model)

    def __str__(self) -> str:
        return self.model or "(no model)"

    def __repr__(self) -> str:
        # As OpenRath's: the model name alone, so no key can reach a log or a traceback.
        return self.__str__()

    @classmethod
    def from_config(
        cls, name: str | None = None, *, store: ConfigStore | None = None, **overrides: Any
    ) -> Provider:
        """The provider of the config file's ``llm.providers`` entry ``name`` (default: default).

        Its kind, model, key, base URL, temperature and max tokens, then ``overrides``.

        Raises:
            ConfigEntryNotFoundError: No such entry (a ``KeyError`` listing the entries).
        """
        store = store or default_store()
        entry = store.get_llm_provider(name)
        fields: dict[str, Any] = {
            "provider_kind": entry.provider_kind,
            "model": entry.model,
            "api_key": entry.api_key,
            "base_url": entry.base_url,
            "temperature": entry.temperature,
            "max_tokens": entry.max_tokens,
        }
        return cls(**(fields | overrides))

    def key_env_names(self) -> tuple[str, ...]:
        """The environment variable names in ``api_key_env``, in order (maybe none)."""
        if self.api_key_env is None:
            return ()
        return (self.api_key_env,) if isinstance(self.api_key_env, str) else tuple(self.api_key_env)

    def sampling_options(self) -> dict[str, Any]:
        """The request fields this provider sets (sampling fields + ``extra_create_args``)."""
        options = {name: getattr(self, name) for name in SAMPLING_FIELDS}
        options = {name: value for name, value in options.items() if value is not None}
        options.update(self.extra_create_args)
        return options


_PROVIDER_FIELDS = [f.name for f in dataclasses.fields(Provider)]
# Provider fields copied verbatim into the chat-completions request when set: the run of
# fields from temperature to service_tier, in declaration order.
SAMPLING_FIELDS: tuple[str, ...] = tuple(
    _PROVIDER_FIELDS[
        _PROVIDER_FIELDS.index("temperature") : _PROVIDER_FIELDS.index("service_tier") + 1
    ]
)


class ProviderSpec(BaseModel):
    """What a workflow knows about a provider: everything but the secret (references instead)."""

    model_config = ConfigDict(frozen=True)

    kind: ProviderKind = "openai"
    model: str | None = None
    base_url: str | None = None
    api_key_ref: str | None = None
    api_key_fallback_refs: tuple[str, ...] = ()
    options: dict[str, Any] = {}
    retry_max_attempts: int | None = None
    retry_base_seconds: float | None = None
    request_timeout: float | None = None
    budget_total_tokens: int | None = None
    """OpenRath's per-provider token budget (a rebuilt Agent still enforces it)."""

    def label(self) -> str:
        """A short human label: ``model`` or ``kind``, for summaries and the UI."""
        return self.model or self.kind

    def key_refs(self) -> tuple[str, ...]:
        """Every credential reference, in the order keys are tried."""
        first = (self.api_key_ref,) if self.api_key_ref else ()
        return first + tuple(ref for ref in self.api_key_fallback_refs if ref != self.api_key_ref)

    def key_names(self, default_env: str) -> str:
        """The variables the worker reads keys from, for messages: ``"A or B"``."""
        names = [ref.removeprefix("env:") for ref in self.key_refs() if ref.startswith("env:")]
        return " or ".join(names) or default_env


def declare_kind(kind: ProviderKind, key_env: str | None) -> None:
    """Make ``kind`` known (a model prefix, a spec's kind), reading its key from ``key_env``."""
    _KINDS[kind] = key_env


def default_key_env(kind: ProviderKind) -> str | None:
    """The variable a kind reads its key from by default (``OPENAI_API_KEY`` ...), if any."""
    return _KINDS.get(kind)


def split_model(model: str | None) -> tuple[str | None, str | None]:
    """``"anthropic:claude-x"`` -> ``("anthropic", "claude-x")``; unknown prefixes stay whole."""
    if not model or ":" not in model:
        return None, model
    prefix, rest = model.split(":", 1)
    if prefix in _KINDS and rest:
        return prefix, rest
    return None, model


_demo_notice_shown = threading.Event()


def provider_spec(provider: Provider, settings: Settings) -> ProviderSpec:
    """The :class:`ProviderSpec` for ``provider``; its key becomes a reference.

    With the embedded default and no credentials anywhere, an OpenAI provider gets Rath's
    offline demo model (a notice on stderr).

    Raises:
        ConfigError: ``api_key`` is set but runs go to a remote cluster (it would enter history).
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

    The provider's fields win, then the environment, then the config file's provider of the kind.
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
    """Whether a credential-less OpenAI provider gets the demo model (embedded, no OpenAI env)."""
    return settings.embedded and not any(
        os.environ.get(name) for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    )


def spec_from_provider(
    provider: Provider, *, api_key_ref: str | None = None, demo_fallback: bool
) -> ProviderSpec:
    """The spec for a provider whose key (if any) is already a reference (pure: workflow code).

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
