"""Which changes a run has: its input's code version, else its patches. See docs/modules.md."""

from __future__ import annotations

from temporalio import workflow


def has_change(patch_id: str) -> bool:
    """Whether the current run has the change ``patch_id`` names (replay-safe)."""
    if getattr(workflow.instance(), "code_version", 0) >= 1:
        return True
    return workflow.patched(patch_id)
