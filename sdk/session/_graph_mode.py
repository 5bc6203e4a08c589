"""Session graph mode: are new sessions lineage-stamped (on by default). See docs/modules.md."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_MODE: ContextVar[bool] = ContextVar("rath_session_graph_mode", default=True)


def session_graph_mode() -> bool:
    """True while new sessions are lineage-stamped (the default)."""
    return _MODE.get()


@contextmanager
def session_graph_mode_override(enabled: bool) -> Iterator[None]:
    """Turn lineage stamping on or off inside the block."""
    token = _MODE.set(enabled)
    try:
        yield
    finally:
        _MODE.reset(token)


def stamped(**lineage: Any) -> dict[str, Any]:
    """``lineage`` (Session fields) when graph mode is on, else nothing (the defaults)."""
    return lineage if _MODE.get() else {}
