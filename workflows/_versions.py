"""Which changes a run has: its input's code version, else its patches. See docs/modules.md."""

from __future__ import annotations

from temporalio import workflow


def has_change(patch_id: str, *, since: int = 1) -> bool:
    """Whether the current run has the change ``patch_id`` names (replay-safe).

    Runs started at code version ``since`` or later have it; older runs ask
    ``workflow.patched`` as they did when recorded.
    """
    if getattr(workflow.instance(), "code_version", 0) >= since:
        return True
    return workflow.patched(patch_id)
