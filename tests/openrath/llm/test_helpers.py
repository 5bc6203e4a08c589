"""OpenRath's pure LLM helpers: retry_with_backoff (and its async twin), parse_tool_arguments."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rath.llm.retry import aretry_with_backoff, retry_classified, retry_with_backoff
from rath.llm.tool_args import parse_tool_arguments


class Flaky(Exception):
    pass


def _failing(times: int, error: type[Exception] = Flaky) -> tuple[list[int], Callable[[], str]]:
    calls: list[int] = []

    def fn() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error("no")
        return "ok"

    return calls, fn


def test_retries_with_exponential_delays_then_succeeds() -> None:
    calls, fn = _failing(2)
    delays: list[float] = []
    result = retry_with_backoff(
        fn,
        retryable=(Flaky,),
        base_seconds=1.0,
        jitter=False,
        sleep=delays.append,
    )
    assert result == "ok" and len(calls) == 3
    assert delays == [1.0, 2.0]


def test_gives_up_after_max_attempts_and_caps_the_delay() -> None:
    calls, fn = _failing(10)
    delays: list[float] = []
    with pytest.raises(Flaky):
        retry_with_backoff(
            fn,
            retryable=(Flaky,),
            max_attempts=5,
            base_seconds=10.0,
            cap_seconds=25.0,
            jitter=False,
            sleep=delays.append,
        )
    assert len(calls) == 5 and delays == [10.0, 20.0, 25.0, 25.0]


def test_other_errors_and_an_empty_retryable_tuple_never_retry() -> None:
    calls, fn = _failing(1, ValueError)
    with pytest.raises(ValueError):
        retry_with_backoff(fn, retryable=(Flaky,), sleep=lambda _: None)
    calls, fn = _failing(1)
    with pytest.raises(Flaky):
        retry_with_backoff(fn, retryable=(), sleep=lambda _: None)
    assert len(calls) == 1


def test_jitter_stays_below_the_base() -> None:
    _, fn = _failing(3)
    delays: list[float] = []
    retry_with_backoff(fn, retryable=(Flaky,), base_seconds=0.5, sleep=delays.append)
    for attempt, delay in enumerate(delays, 1):
        assert 0.5 * 2 ** (attempt - 1) <= delay < 0.5 * 2 ** (attempt - 1) + 0.5


async def test_the_async_twin_retries_the_same_way() -> None:
    attempts: list[int] = []
    delays: list[float] = []

    async def fn() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise Flaky("no")
        return "ok"

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    result = await aretry_with_backoff(
        fn, retryable=(Flaky,), base_seconds=1.0, jitter=False, sleep=sleep
    )
    assert result == "ok" and delays == [1.0, 2.0]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"a": 1}', ({"a": 1}, False)),
        ("", (None, False)),
        ("   ", (None, True)),  # OpenRath: only an empty string means no arguments
        ("[1, 2]", (None, True)),
        ("{not json", (None, True)),
        ('"text"', (None, True)),
    ],
)
def test_parse_tool_arguments(raw: str, expected: tuple[object, bool]) -> None:
    assert parse_tool_arguments(raw) == expected


class Classified(Exception):
    def __init__(self, retryable: bool, retry_after: float | None = None) -> None:
        super().__init__("classified")
        self.retryable = retryable
        self.retry_after = retry_after


def test_classified_errors_retry_as_they_say() -> None:
    errors = [Classified(True, retry_after=7.0), Classified(True), Classified(False)]
    delays: list[float] = []

    def fn() -> str:
        raise errors.pop(0)

    with pytest.raises(Classified) as info:
        retry_classified(fn, base_seconds=1.0, sleep=delays.append)
    assert info.value.retryable is False
    assert delays[0] == 7.0 and 2.0 <= delays[1] < 3.0  # the server's delay, then backoff
