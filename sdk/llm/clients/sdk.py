"""Both faces of a vendor's chat client over its official SDK, and where it calls.

Sync (OpenRath's, retried) and async (the activities', never retried): docs/providers.md.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self, TypeVar

from rath.config import default_store
from rath.errors import ConfigError
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse, RathLLMStreamDelta
from rath.llm.clients.http import CallSite, SDKErrors, mid_stream_errors, provider_errors
from rath.llm.credentials import redact_secrets
from rath.llm.errors import ProviderError
from rath.llm.provider import Provider, ProviderSpec
from rath.llm.retry import retry_classified
from rath.llm.stream import Emit, StreamAnswer

T = TypeVar("T")

DEFAULT_TIMEOUT = 600.0
DEFAULT_STREAM_IDLE = 60.0
"""Seconds a streamed answer may send nothing before the attempt ends (and is retried)."""
_END = object()


class Retrying(Protocol):
    """A provider's retry settings (``None``: OpenRath's defaults)."""

    @property
    def retry_max_attempts(self) -> int | None:
        """The most attempts of a call."""
        ...

    @property
    def retry_base_seconds(self) -> float | None:
        """The base backoff delay, in seconds."""
        ...


@dataclass(frozen=True)
class Endpoint:
    """Where and how to call, with the worker's defaults applied (its repr hides the key)."""

    base_url: str | None
    model: str
    api_key: str = field(repr=False)
    timeout: float = DEFAULT_TIMEOUT
    stream_idle: float = DEFAULT_STREAM_IDLE


def resolve_endpoint(
    spec: ProviderSpec, api_key: str | None, *, label: str, env_prefix: str
) -> Endpoint:
    """The worker's endpoint for ``spec`` (``<PREFIX>_BASE_URL``/``_DEFAULT_MODEL`` fill gaps).

    Raises:
        ConfigError: No model, or no key and no ``base_url`` (a local server gets a placeholder).
    """
    base_url = spec.base_url or os.environ.get(f"{env_prefix}_BASE_URL") or None
    model = spec.model or os.environ.get(f"{env_prefix}_DEFAULT_MODEL") or ""
    if not model:
        raise ConfigError(
            f"no model for {label}: set Provider(model=...) or {env_prefix}_DEFAULT_MODEL "
            "on the worker"
        )
    if api_key is None:
        if base_url is None:
            raise ConfigError(
                f"no API key for {label}: set {spec.key_names(f'{env_prefix}_API_KEY')} in the "
                "worker's environment (or Provider(api_key_env='NAME')), or point "
                "Provider(base_url=...) at a compatible server"
            )
        api_key = "unused"  # local compatible servers ignore the key; the SDKs want one
    return Endpoint(
        base_url, model, api_key, spec.request_timeout or DEFAULT_TIMEOUT, stream_idle_seconds()
    )


def stream_idle_seconds() -> float:
    """``RATH_STREAM_IDLE_SECONDS`` on this worker (default :data:`DEFAULT_STREAM_IDLE`).

    Raises:
        ConfigError: Not a positive number.
    """
    text = os.environ.get("RATH_STREAM_IDLE_SECONDS")
    if not text:
        return DEFAULT_STREAM_IDLE
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ConfigError(f"RATH_STREAM_IDLE_SECONDS must be a positive number, not {text!r}")
    return value


def require_credentials(what: str, key: str | None, base_url: str | None, prefix: str) -> None:
    """Refuse a client with no key and no server to send none to (OpenRath's wording).

    Raises:
        ConfigError: Neither given nor in ``<prefix>_API_KEY``/``<prefix>_BASE_URL``.
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


def direct_target(
    provider: Provider,
    kind: str,
    *,
    label: str,
    key_envs: Callable[[str | None], Sequence[str]],
    url_envs: Sequence[str] = (),
) -> tuple[Endpoint, CallSite]:
    """Where ``provider`` is called from plain Python: its fields, the environment, the config file.

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
    return Endpoint(base_url, model or "", key or "unused", timeout), site


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


class SDKChatClient:
    """A vendor's chat client: both faces share the wire translations, errors and SDK setup.

    Subclasses set the class variables below and the translation hooks.
    """

    path: ClassVar[str]
    errors: ClassVar[SDKErrors]
    new_sdk: ClassVar[Callable[..., Any]]
    default_kind: ClassVar[str]
    """The kind served; its upper case is the prefix of the ``<PREFIX>_*`` variables read."""
    label: ClassVar[str]
    """The vendor's name in error messages."""
    key_envs: ClassVar[Callable[..., Sequence[str]]]
    """The variables the sync face reads a key from, given the base URL."""
    url_envs: ClassVar[Sequence[str]] = ()
    """The variables the sync face reads a base URL from (default ``<PREFIX>_BASE_URL``)."""
    stream_answer: ClassVar[type[StreamAnswer]]

    def __init__(self, provider: Provider) -> None:
        cls = type(self)
        endpoint, site = direct_target(
            provider,
            cls.default_kind,
            label=cls.label,
            key_envs=cls.key_envs,
            url_envs=cls.url_envs,
        )
        self._setup(provider.provider_kind or cls.default_kind, endpoint, site, provider)
        self._sdk(asynchronous=False)

    def _setup(
        self, kind: str, endpoint: Endpoint, site: CallSite, provider: Provider | None
    ) -> None:
        self._kind = kind
        self._endpoint = endpoint
        self._model = endpoint.model
        self._default_model = endpoint.model or None
        self._site = site
        self._provider = provider
        self._sdks: dict[bool, Any] = {}

    @classmethod
    def for_endpoint(cls, endpoint: Endpoint, *, kind: str) -> Self:
        """The async face for a worker (its SDK client built now, off the event loop)."""
        client = cls.__new__(cls)
        where = f"{kind} at {endpoint.base_url}" if endpoint.base_url else kind
        site = CallSite(
            where="the demo model" if kind == "demo" else where,
            model=endpoint.model,
            timeout=endpoint.timeout,
            redact=lambda text: redact_secrets(text, [endpoint.api_key]),
        )
        client._setup(kind, endpoint, site, None)
        client._sdk(asynchronous=True)
        return client

    @classmethod
    def for_spec(cls, spec: ProviderSpec, api_key: str | None) -> Self:
        """The worker's client for ``spec`` (``<PREFIX>_*`` variables fill gaps)."""
        prefix = cls.default_kind.upper()
        endpoint = resolve_endpoint(spec, api_key, label=cls.label, env_prefix=prefix)
        return cls.for_endpoint(endpoint, kind=cls.default_kind)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._site.where}, model={self._model!r})"

    def _sdk(self, *, asynchronous: bool) -> Any:
        """The SDK client of one face, built on first use with ``max_retries=0``."""
        sdk = self._sdks.get(asynchronous)
        if sdk is None:
            e = self._endpoint
            sdk = self._sdks[asynchronous] = type(self).new_sdk(
                e.base_url, e.api_key, e.timeout, asynchronous=asynchronous
            )
        return sdk

    @property
    def _client(self) -> Any:
        """The sync face's SDK client (OpenRath's attribute)."""
        return self._sdk(asynchronous=False)

    @property
    def kind(self) -> str:
        """The kind this client serves."""
        return self._kind

    @property
    def model(self) -> str:
        """The model this client asks for (``""``: each request names one)."""
        return self._model

    @property
    def provider(self) -> Provider:
        """The provider of the sync face (``AttributeError`` for a worker-built client)."""
        if self._provider is None:
            raise AttributeError(f"{self!r} was built for a worker: it has no Provider")
        return self._provider

    def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """One completion, OpenRath's way (retried with the provider's ``retry_*``).

        Raises:
            ProviderError: The endpoint failed.
        """
        kwargs = self._kwargs(req, stream=False)
        return self._normalize(retried(self.provider, lambda: self._created(kwargs)))

    def complete_stream(self, req: RathLLMChatRequest) -> Iterator[RathLLMStreamDelta]:
        """The completion as deltas (only opening the stream is retried)."""
        kwargs = self._kwargs(req, stream=True)
        stream = retried(self.provider, lambda: self._created(kwargs))
        answer = self._stream_answer()
        with provider_errors(self.errors, self._site):
            for event in stream:
                yield from answer.feed(event.model_dump())

    def _created(self, kwargs: dict[str, Any]) -> Any:
        """One SDK call of the sync face, its errors classified (one attempt)."""
        with provider_errors(self.errors, self._site):
            return self._create(self._client, kwargs)

    def close(self) -> None:
        """Close the sync face's HTTP client."""
        sdk = self._sdks.pop(False, None)
        if sdk is not None:
            sdk.close()

    async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """One completion on the live wire (never retried).

        Raises:
            ProviderError: The endpoint failed (classified: retryable or not).
        """
        body = self._body(req)
        with provider_errors(self.errors, self._site):
            # `object` keeps the answer as parsed JSON; the typed SDK methods would re-walk
            # the (already wire-form) request, costing milliseconds per call.
            answer = await self._sdk(asynchronous=True).post(self.path, body=body, cast_to=object)
            return self._completion(answer)

    async def astream(self, req: RathLLMChatRequest, emit: Emit) -> RathLLMChatResponse:
        """:meth:`acomplete` streamed (SSE): ``emit`` gets each delta as it comes.

        Raises:
            ProviderError: As :meth:`acomplete`, or a stream that stalls, breaks off, ends early or
                reports an error (retryable).
        """
        answer = self._stream_answer()
        body, stream_cls = self._stream_body(self._body(req))
        with provider_errors(self.errors, self._site), mid_stream_errors(self.errors, self._site):
            stream = await self._sdk(asynchronous=True).post(
                self.path, body=body, cast_to=object, stream=True, stream_cls=stream_cls
            )
            async with stream:  # closed on every path: an error, a cancel, the end
                items = aiter(stream)
                while (item := await self._next(items)) is not _END:
                    for delta in answer.feed(item):
                        emit(delta)
            return self._completion(answer.answer())

    async def _next(self, items: AsyncIterator[Any]) -> Any:
        """The next item (:data:`_END` after the last); only silence past the idle time fails."""
        idle = self._endpoint.stream_idle
        try:
            return await asyncio.wait_for(anext(items), idle)
        except StopAsyncIteration:
            return _END
        except TimeoutError:
            raise ProviderError(
                f"{self._site.where} sent nothing for {idle:g}s mid-stream for "
                f"model {self._model!r} (RATH_STREAM_IDLE_SECONDS); retrying",
                error_type="LLMTimeout",
                retryable=True,
            ) from None

    async def aclose(self) -> None:
        """Close the async face's HTTP client."""
        sdk = self._sdks.pop(True, None)
        if sdk is not None:
            await sdk.close()

    def _body(self, req: RathLLMChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _completion(self, answer: object) -> RathLLMChatResponse:
        raise NotImplementedError

    def _stream_body(self, body: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        """The body of a streamed call, and the SDK's stream class to read it with."""
        raise NotImplementedError

    def _stream_answer(self) -> StreamAnswer:
        return self.stream_answer(where=self._site.where, model=self._site.model)

    def _kwargs(self, req: RathLLMChatRequest, *, stream: bool) -> dict[str, Any]:
        raise NotImplementedError

    def _create(self, sdk: Any, kwargs: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _normalize(self, raw: Any) -> RathLLMChatResponse:
        raise NotImplementedError
