"""OpenRath's ``LineageRecorder`` and read-only lineage views."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from rath.session._graph_mode import session_graph_mode
from rath.session._lineage import LineageKind
from rath.session._session import Session
from rath.session.graph._journal import record_session


class LineageRecorder:
    """Stamps sessions made by custom operators, as Rath's own operators do."""

    @staticmethod
    def stamp_new_session(
        session: object,
        *,
        parent_session_ids: Iterable[UUID],
        lineage_operator: str,
        lineage_kind: LineageKind,
        lineage_extras: Iterable[tuple[str, Any]] = (),
    ) -> None:
        """Write the four lineage fields and record ``session`` in the active journal.

        A no-op while :func:`~rath.session.graph.session_graph_mode` is off.

        Raises:
            TypeError: ``session`` is not a :class:`~rath.session.Session`.
        """
        if not isinstance(session, Session):
            raise TypeError(f"stamp_new_session needs a Session, not {type(session).__name__}")
        if not session_graph_mode():
            return
        session.parent_session_ids = tuple(parent_session_ids)
        session.lineage_operator = lineage_operator
        session.lineage_kind = LineageKind(lineage_kind)
        session.lineage_extras = tuple(lineage_extras)
        record_session(session)


@dataclass(frozen=True, slots=True)
class FrozenLineageView:
    """A session's lineage fields, detached from the session."""

    session_id: UUID
    parent_session_ids: tuple[UUID, ...]
    lineage_operator: str
    lineage_kind_str: str
    lineage_extras: tuple[tuple[str, Any], ...]


def lineage_view_dataclass(carrier: Any) -> FrozenLineageView:
    """The lineage of ``carrier`` (a session, or anything with the same fields)."""
    kind = getattr(carrier, "lineage_kind", LineageKind.UNKNOWN)
    return FrozenLineageView(
        session_id=carrier.id,
        parent_session_ids=tuple(carrier.parent_session_ids),
        lineage_operator=getattr(carrier, "lineage_operator", "implicit"),
        lineage_kind_str=str(getattr(kind, "value", kind)),
        lineage_extras=tuple(getattr(carrier, "lineage_extras", ())),
    )
