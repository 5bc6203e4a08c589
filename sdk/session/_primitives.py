"""OpenRath's module-level session constructors and operators."""

from __future__ import annotations

from rath.session._chunks import system_text_chunk, user_text_chunk
from rath.session._graph_mode import stamped
from rath.session._lineage import LineageKind
from rath.session._session import Session


def create_user_session(message: str) -> Session:
    """A stamped USER leaf (operator ``create_user_session``)."""
    return Session.from_rows(
        [user_text_chunk(message)],
        **stamped(
            lineage_kind=LineageKind.LEAF_USER,
            lineage_operator="create_user_session",
            lineage_extras=(("source", "create_user_session"),),
        ),
    )


def create_system_session(prompt: str) -> Session:
    """A stamped SYSTEM leaf (operator ``create_system_session``)."""
    return Session.from_rows(
        [system_text_chunk(prompt)],
        **stamped(
            lineage_kind=LineageKind.LEAF_SYSTEM,
            lineage_operator="create_system_session",
            lineage_extras=(("source", "create_system_session"),),
        ),
    )


def fork_session(from_session: Session) -> Session:
    """``from_session.fork()``."""
    return from_session.fork()


def detach_session(from_session: Session) -> Session:
    """``from_session.detach()``."""
    return from_session.detach()
