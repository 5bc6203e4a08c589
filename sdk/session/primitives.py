"""OpenRath's module-level session constructors and operators, and ``attach``."""

from __future__ import annotations

from uuid import UUID

from rath.session.chunk import system_text_chunk, user_text_chunk
from rath.session.graph.kind import LineageKind
from rath.session.host import current_host
from rath.session.session import Session, stamped_leaf


def create_user_session(message: str) -> Session:
    """A stamped USER leaf (operator ``create_user_session``), recorded in the journal."""
    return stamped_leaf(user_text_chunk(message), LineageKind.LEAF_USER, "create_user_session")


def create_system_session(prompt: str) -> Session:
    """A stamped SYSTEM leaf (operator ``create_system_session``), recorded in the journal."""
    return stamped_leaf(system_text_chunk(prompt), LineageKind.LEAF_SYSTEM, "create_system_session")


def fork_session(from_session: Session) -> Session:
    """``from_session.fork()``."""
    return from_session.fork()


def detach_session(from_session: Session) -> Session:
    """``from_session.detach()``."""
    return from_session.detach()


def attach(session_or_run: UUID | str) -> Session:
    """``rath.session.attach``: the session a run produces (or produced), from any process.

    By session id or by workflow id; the session is lazy while the run goes on.

    Raises:
        RunNotFoundError: Neither the catalog nor Temporal knows it, or the run is of a
            kind that makes no session (``rath.CloseSandbox``).
    """
    out: Session = current_host().attach(session_or_run)
    return out
