"""Session graph mode: are new sessions lineage-stamped (on by default). See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from rath.session.graph.kind import LineageKind

T = TypeVar("T")

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


def stamped_output(
    make: Callable[..., T],
    first: Any,
    second: Any,
    kind: LineageKind,
    operator: str,
    *,
    extras: tuple[tuple[str, Any], ...] = (),
) -> T:
    """A new ``make`` session from ``first`` and ``second``, stamped; on ``first``'s sandbox.

    As in OpenRath, the output is placed where ``first`` is (an unbound ``first``: unbound).
    """
    lineage = stamped(
        parent_session_ids=(first.id, second.id),
        lineage_kind=kind,
        lineage_operator=operator,
        lineage_extras=extras,
    )
    return make(sandbox=first.sandbox, **lineage)
