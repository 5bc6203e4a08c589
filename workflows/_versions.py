"""Which changes a run has: its input's code version, else (older runs) Temporal's patches.

A ``workflow.patched`` call records a marker and a ``TemporalChangeVersion`` search-attribute
upsert in every new run; three per session cost the server a visibility write and dozens of
reads. Runs started with :data:`~rath.contracts.CODE_VERSION` carry it in their input instead,
so they record none; runs recorded before (version 0) ask ``workflow.patched`` as they did.
"""

from __future__ import annotations

from temporalio import workflow


def has_change(patch_id: str) -> bool:
    """Whether the current run has the change ``patch_id`` names (replay-safe).

    Each Rath workflow keeps its input's ``code_version`` as its ``code_version`` attribute.
    """
    if getattr(workflow.instance(), "code_version", 0) >= 1:
        return True
    return workflow.patched(patch_id)
