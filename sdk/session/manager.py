"""OpenRath's process-wide session registry: by id, and the active one. See docs/modules.md."""

from __future__ import annotations

import threading
import weakref
from uuid import UUID

from rath.session.session import Session


class SessionRegistry:
    """Sessions by id (held weakly) and the id of the active one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: weakref.WeakValueDictionary[UUID, Session] = weakref.WeakValueDictionary()
        self._active_id: UUID | None = None

    def register(self, session: Session) -> None:
        """Make ``session`` findable by its id."""
        with self._lock:
            self._by_id[session.id] = session

    def get(self, session_id: UUID) -> Session | None:
        """The registered session with that id, if it still exists."""
        with self._lock:
            return self._by_id.get(session_id)

    def set_active(self, session: Session | None) -> None:
        """Register ``session`` and make it the active one (``None`` clears it)."""
        with self._lock:
            if session is not None:
                self._by_id[session.id] = session
            self._active_id = None if session is None else session.id

    def get_active_id(self) -> UUID | None:
        """The id of the active session, or ``None``."""
        with self._lock:
            return self._active_id


_REGISTRY = SessionRegistry()


def session_registry() -> SessionRegistry:
    """The process-wide registry."""
    return _REGISTRY


def register_run(user: Session, agent: Session, out: Session) -> None:
    """What a client-side loop or compress call does: register all three, ``out`` active."""
    _REGISTRY.register(user)
    _REGISTRY.register(agent)
    _REGISTRY.set_active(out)
