"""The child-runs activity's contract: stop the children an earlier run of a workflow left.

``temporal workflow reset`` closes the old run but leaves its children running (server 1.32
applies no parent-close policy to a reset), and a reset ``rath.Forward`` re-derives the same
child ids for the agents it starts again. Before it starts its first child, a reset run asks
this activity to cancel the old run's children it did not inherit, and to wait for them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rath.contracts._contract import ActivityContract


class StopChildrenArgs(BaseModel):
    """Input of ``rath.runs.stop_old_children``.

    Attributes:
        workflow_id: The parent's workflow id (its children name it as their parent).
        run_id: The parent's current run: its own children are left alone.
        keep: Child ids the current run inherited from before the reset point (it waits on
            them): left alone too.
        reason: Why, as the children's cancel request says it.
        wait_seconds: How long to wait for them to close; those still running after it are
            terminated, so a reused child id is free.
    """

    model_config = ConfigDict(frozen=True)

    workflow_id: str
    run_id: str
    keep: tuple[str, ...] = ()
    reason: str
    wait_seconds: float = 60.0


class StopChildrenResult(BaseModel):
    """The old children stopped: cancelled (they closed in time) and terminated."""

    model_config = ConfigDict(frozen=True)

    cancelled: tuple[str, ...] = ()
    terminated: tuple[str, ...] = ()


STOP_OLD_CHILDREN = ActivityContract(
    "rath.runs.stop_old_children", StopChildrenArgs, StopChildrenResult
)
"""Cancel (and wait for) the running children of a workflow id's other runs."""
