"""The call a user tool is running, readable from inside the tool (its idempotency key).

See docs/sandboxes.md, "Where the code is".
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
