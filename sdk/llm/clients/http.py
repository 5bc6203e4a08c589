"""Reading a model endpoint's failures and classifying them once, for every SDK alike.

The rules are docs/providers.md, "Retries and errors"; the memory embedder shares them.
"""

from __future__ import annotations

import contextlib
import email.utils
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, cast

import httpx

from rath.llm.errors import ProviderError

# Statuses worth retrying besides 5xx: request timeout, conflict, too early, rate limited.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})

# A stream that stalls or breaks off raises the HTTP library's own errors, unwrapped.
_TIMEOUTS: tuple[type[BaseException], ...] = (httpx.TimeoutException,)
_TRANSPORT: tuple[type[BaseException], ...] = (httpx.TransportError,)
# A response that ended before its Content-Length (or mid-stream) surfaces as the HTTP
# library's RemoteProtocolError, wrapped in the SDK's connection error. Recent SDKs use httpx2.
_INCOMPLETE: tuple[type[BaseException], ...] = (httpx.RemoteProtocolError,)
with contextlib.suppress(ImportError):
    import httpx2

    _INCOMPLETE += (httpx2.RemoteProtocolError,)
    _TIMEOUTS += (httpx2.TimeoutException,)
    _TRANSPORT += (httpx2.TransportError,)
# Through the SDKs' aiohttp transport the same break-off is aiohttp's ClientPayloadError,
# re-raised as the HTTP library's ReadError.
# A refused connection is its ClientConnectorError, and a connection the server closed before
# answering (it stopped, e.g. with the worker it ran in) its ServerDisconnectedError: openai's
# copy of the transport re-raises both as a ConnectTimeout, anthropic's as a ConnectError.
_CUT_SHORT: tuple[type[BaseException], ...] = ()
_NO_CONNECTION: tuple[type[BaseException], ...] = ()
_CLOSED: tuple[type[BaseException], ...] = ()
with contextlib.suppress(ImportError):
    import aiohttp

    _CUT_SHORT += (aiohttp.ClientPayloadError,)
    _NO_CONNECTION += (aiohttp.ClientConnectorError, aiohttp.ServerDisconnectedError)
    _CLOSED += (aiohttp.ServerDisconnectedError,)


def _connect_failed(cause: BaseException | None) -> bool:
    """A refused, unresolvable or closed connection (aiohttp's transport may call it a timeout)."""
    root = getattr(cause, "__cause__", None)
    return isinstance(root, _NO_CONNECTION) and not isinstance(root, TimeoutError)


def _closed(cause: BaseException | None) -> bool:
    """Whether the server closed the connection before it answered."""
    return isinstance(getattr(cause, "__cause__", None), _CLOSED)


def _closed_error(site: CallSite, when: str) -> ProviderError:
    return ProviderError(
        f"{site.where} closed the connection {when} (model {site.model!r}): the server "
        "stopped or dropped it",
        error_type="LLMConnectionError",
        retryable=True,
    )


def _incomplete(cause: BaseException | None) -> bool:
    """Whether ``cause`` (an SDK connection error's) is a response that ended too early."""
    return isinstance(cause, _INCOMPLETE) or isinstance(
        getattr(cause, "__cause__", None), _CUT_SHORT
    )


class StatusErrorLike(Protocol):
    """What :func:`error_message` reads from an SDK's status error."""

    body: object
    message: str


# 429 codes that mean the account cannot pay, not that it asked too fast (OpenAI's).
_BILLING_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})


def _error_code(exc: Any) -> str | None:
    body = getattr(exc, "body", None)
    inner = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return None
    code = inner.get("code") or inner.get("type")
    return code if isinstance(code, str) else None


def error_message(exc: StatusErrorLike) -> str:
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


@dataclass(frozen=True)
class SDKErrors:
    """One SDK's exception classes (``openai`` and ``anthropic`` have the same four)."""

    status: type[Exception]
    timeout: type[Exception]
    connection: type[Exception]
    validation: type[Exception]


@dataclass(frozen=True)
class CallSite:
    """What an error message names: the endpoint, the model, the request timeout."""

    where: str
    model: str
    timeout: float
    redact: Callable[[str], str]


@contextlib.contextmanager
def provider_errors(sdk: SDKErrors, site: CallSite) -> Iterator[None]:
    """Raise every failure of the block as one classified :class:`ProviderError` (docs' rules)."""
    try:
        yield
    except sdk.status as exc:
        raise status_error(exc, site) from None
    except sdk.connection as exc:  # the SDKs' timeout error is a connection error too
        raise _unanswered(exc, sdk, site) from None
    except (sdk.validation, ValueError, TypeError, KeyError, AttributeError) as exc:
        # A body that is not JSON, or JSON of the wrong shape (no choices, no content).
        raise ProviderError(
            f"{site.where} sent a malformed response for model {site.model!r}: "
            f"{type(exc).__name__}: {site.redact(str(exc))[:200]}",
            error_type="LLMBadResponse",
            retryable=True,
        ) from None


def status_error(exc: Any, site: CallSite) -> ProviderError:
    """The :class:`ProviderError` for an SDK status error (``exc.status_code``, ``.response``)."""
    status: int = exc.status_code
    response = getattr(exc, "response", None)
    retryable = status in RETRYABLE_STATUS or status >= 500
    if status == 429 and _error_code(exc) in _BILLING_CODES:
        retryable = False  # out of credit, not rate limited: waiting does not help
    should = response.headers.get("x-should-retry") if response is not None else None
    if should in ("true", "false"):
        retryable = should == "true"
    return ProviderError(
        f"{site.where} answered HTTP {status} for model {site.model!r}: "
        f"{site.redact(error_message(exc))}",
        error_type=f"LLMHTTP{status}",
        retryable=retryable,
        retry_after=retry_after_seconds(response) if retryable else None,
        status=status,
    )


def _unanswered(exc: Exception, sdk: SDKErrors, site: CallSite) -> ProviderError:
    """A request that got no whole answer: a timeout, a response cut short, or no connection."""
    cause = exc.__cause__
    if isinstance(exc, sdk.timeout) and not _connect_failed(cause):
        return ProviderError(
            f"{site.where} did not answer model {site.model!r} within {site.timeout:g}s",
            error_type="LLMTimeout",
            retryable=True,
        )
    if _closed(cause):
        return _closed_error(site, "before answering")
    if _incomplete(cause):
        return ProviderError(
            f"{site.where} sent an incomplete response for model {site.model!r}: "
            f"{site.redact(str(cause))}",
            error_type="LLMBadResponse",
            retryable=True,
        )
    return ProviderError(
        f"cannot reach {site.where}: {site.redact(str(cause or exc))}",
        error_type="LLMConnectionError",
        retryable=True,
    )


@contextlib.contextmanager
def mid_stream_errors(sdk: SDKErrors, site: CallSite) -> Iterator[None]:
    """Failures only a stream has; everything else is left to ``provider_errors``."""
    try:
        yield
    except _TIMEOUTS as exc:
        if _closed(exc):
            raise _closed_error(site, "mid-stream") from None
        raise ProviderError(
            f"{site.where} stalled mid-stream for model {site.model!r} (over {site.timeout:g}s "
            "between events)",
            error_type="LLMTimeout",
            retryable=True,
        ) from None
    except _TRANSPORT as exc:
        raise ProviderError(
            f"{site.where} broke off its stream for model {site.model!r}: {site.redact(str(exc))}",
            error_type="LLMBadResponse",
            retryable=True,
        ) from None
    except Exception as exc:
        if not _error_event(exc, sdk):
            raise
        message = error_message(cast(Any, exc)) if isinstance(exc, sdk.status) else str(exc)
        raise ProviderError(
            f"{site.where} reported an error mid-stream for model {site.model!r}: "
            f"{site.redact(message)}",
            error_type="LLMStreamError",
            retryable=True,
        ) from None


def _error_event(exc: Exception, sdk: SDKErrors) -> bool:
    """An error event inside a 200 stream (overloaded, server error): worth another try.

    ``anthropic`` raises it as a status error carrying the stream's 200; ``openai`` as its
    base ``APIError``.
    """
    if isinstance(exc, sdk.status):
        return int(getattr(exc, "status_code", 0) or 0) < 400
    if isinstance(exc, sdk.timeout | sdk.connection | sdk.validation):
        return False
    base = next(c for c in sdk.status.__mro__ if c.__name__ == "APIError")
    return isinstance(exc, base)
