"""The call a user tool is running, readable from inside the tool.

Tool activities are at-least-once: a worker that dies mid-call leaves Temporal to retry it.
Each call therefore has a stable idempotency key (workflow id, run id and activity id), the
same on every attempt, which a tool can hand to the system it changes (a payment API's
``Idempotency-Key``, a unique row id) so that a repeated attempt has no second effect.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolCallContext:
    """One tool call, as the worker runs it.

    Attributes:
        idempotency_key: Stable across every attempt of this call, unique across calls.
        attempt: 1 on the first attempt, then 2, 3... when Temporal retries the call.
        tool_name: The tool's name.
    """

    idempotency_key: str
    attempt: int
    tool_name: str


_CURRENT: ContextVar[ToolCallContext | None] = ContextVar("rath_tool_call", default=None)


def current_tool_call() -> ToolCallContext | None:
    """The call the current tool is running, or None outside a tool call.

    Works in async tools and in synchronous ones (they run on a thread that inherits the
    context).

    Example:
        @tool(retry_safe=True)
        def charge(amount: int) -> str:
            call = current_tool_call()
            return payments.charge(amount, idempotency_key=call.idempotency_key)
    """
    return _CURRENT.get()


@contextmanager
def calling(context: ToolCallContext) -> Iterator[None]:
    """Make ``context`` the current call while the block runs."""
    token = _CURRENT.set(context)
    try:
        yield
    finally:
        _CURRENT.reset(token)
