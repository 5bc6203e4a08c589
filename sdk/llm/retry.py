"""OpenRath's retry helper (4 attempts, 0.5 s base, 30 s cap, jitter) for user code.

Rath's own LLM calls are retried by Temporal instead.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_MAX_ATTEMPTS = 4
DEFAULT_BASE_SECONDS = 0.5

Retryable = tuple[type[BaseException], ...]


def backoff_delay(attempt: int, base: float, cap: float, *, jitter: bool = True) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
    delay: float = min(cap, base * 2.0 ** (attempt - 1))
    return delay + (random.uniform(0, base) if jitter else 0.0)


def retry_with_backoff(
    fn: Callable[[], T],
    *,
    retryable: Retryable,
    max_attempts: int | None = None,
    base_seconds: float | None = None,
    cap_seconds: float = 30.0,
    jitter: bool = True,
    sleep: Callable[[float], object] = time.sleep,
) -> T:
    """Call ``fn`` until it returns, retrying the exception types in ``retryable``.

    The delay before retry ``n`` is ``min(cap, base * 2 ** (n - 1))`` plus ``U[0, base)`` when
    ``jitter``; fewer than one attempt means one; an empty ``retryable`` never retries.

    Raises:
        The last exception, once ``max_attempts`` attempts failed.
    """
    return _retry(
        fn,
        lambda exc: isinstance(exc, retryable),
        lambda exc, attempt: backoff_delay(
            attempt, _base(base_seconds), cap_seconds, jitter=jitter
        ),
        _attempts(max_attempts),
        sleep,
    )


async def aretry_with_backoff(
    fn: Callable[[], Awaitable[T]],
    *,
    retryable: Retryable,
    max_attempts: int | None = None,
    base_seconds: float | None = None,
    cap_seconds: float = 30.0,
    jitter: bool = True,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> T:
    """The async twin of :func:`retry_with_backoff` (``fn`` returns an awaitable)."""
    attempts = _attempts(max_attempts)
    base = _base(base_seconds)
    attempt = 1
    while True:
        try:
            return await fn()
        except retryable:
            if attempt >= attempts:
                raise
        await sleep(backoff_delay(attempt, base, cap_seconds, jitter=jitter))
        attempt += 1


def retry_classified(
    fn: Callable[[], T],
    *,
    max_attempts: int | None = None,
    base_seconds: float | None = None,
    cap_seconds: float = 30.0,
    sleep: Callable[[float], object] = time.sleep,
) -> T:
    """Call ``fn``, retrying errors classified ``retryable`` (after ``retry_after``, else backoff).

    Raises:
        The first error that is not retryable, or the last one.
    """
    return _retry(
        fn,
        lambda exc: bool(getattr(exc, "retryable", False)),
        lambda exc, attempt: (
            getattr(exc, "retry_after", None)
            or backoff_delay(attempt, _base(base_seconds), cap_seconds)
        ),
        _attempts(max_attempts),
        sleep,
    )


def _attempts(max_attempts: int | None) -> int:
    """Attempts in all: the default for ``None``, and at least one (OpenRath clamps 0 to 1)."""
    return DEFAULT_MAX_ATTEMPTS if max_attempts is None else max(1, max_attempts)


def _base(base_seconds: float | None) -> float:
    return DEFAULT_BASE_SECONDS if base_seconds is None else base_seconds


def _retry(
    fn: Callable[[], T],
    worth_retrying: Callable[[BaseException], bool],
    delay: Callable[[BaseException, int], float],
    attempts: int,
    sleep: Callable[[float], object],
) -> T:
    """The loop both retry helpers share: call, and on an error worth it, wait and call again."""
    attempt = 1
    while True:
        try:
            return fn()
        except BaseException as exc:
            if not worth_retrying(exc) or attempt >= attempts:
                raise
            sleep(delay(exc, attempt))
        attempt += 1
