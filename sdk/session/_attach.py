"""``rath.session.attach``: the lazy session of an existing run, from any process."""

from __future__ import annotations

from uuid import UUID

from rath.session.host import current_host
from rath.session.session import Session


def attach(session_or_run: UUID | str) -> Session:
    """The session a run produces (or produced), by session id or by workflow id.

    A script stopped with Ctrl-C leaves its runs going; run again, it can pick a run back up
    with ``attach(session_id)`` (from the catalog, or ``rath sessions``) or
    ``attach(workflow_id)``: lazy while the run goes on, ready once it ends, and a failed
    run raises its error.

    Args:
        session_or_run: A session id from the catalog (``rath sessions ls``), or a run's
            workflow id (``rath-Squad-...``, printed when it started).

    Returns:
        A lazy session while the run goes on, a ready one once it ended. A finished session
        whose run Temporal no longer keeps is rebuilt from its catalog record. The wait
        follows the workflow id through a reset or continue-as-new, and says in one line
        when no worker answers for the run (which to start).

    Raises:
        RunNotFoundError: Neither the catalog nor Temporal knows it, or the run is of a
            kind that makes no session (``rath.CloseSandbox``).
    """
    out: Session = current_host().attach(session_or_run)
    return out
