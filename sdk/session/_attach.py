"""``rath.session.attach``: the lazy session of an existing run, from any process."""

from __future__ import annotations

from uuid import UUID

from rath.session.host import current_host
from rath.session.session import Session


def attach(session_or_run: UUID | str) -> Session:
    """The session a run produces (or produced), by session id or by workflow id.

    Raises:
        RunNotFoundError: Neither the catalog nor Temporal knows it, or the run is of a
            kind that makes no session (``rath.CloseSandbox``).
    """
    out: Session = current_host().attach(session_or_run)
    return out
