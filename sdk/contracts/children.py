"""The child-runs activity's contract: stop an earlier run's children. See docs/modules.md."""

from __future__ import annotations

from rath.contracts._contract import ActivityContract
from rath.utils.frozen import Frozen


class StopChildrenArgs(Frozen):
    """Input of ``rath.runs.stop_old_children``."""

    workflow_id: str
    run_id: str
    keep: tuple[str, ...] = ()
    reason: str
    wait_seconds: float = 60.0


class StopChildrenResult(Frozen):
    """The old children stopped: cancelled (they closed in time) and terminated."""

    cancelled: tuple[str, ...] = ()
    terminated: tuple[str, ...] = ()


STOP_OLD_CHILDREN = ActivityContract(
    "rath.runs.stop_old_children", StopChildrenArgs, StopChildrenResult
)
"""Cancel (and wait for) the running children of a workflow id's other runs."""
