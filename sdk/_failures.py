"""Readable messages for Temporal failures (shared by client code and workflow code)."""

from __future__ import annotations

from temporalio.client import WorkflowFailureError


def describe_failure(exc: BaseException) -> str:
    """The messages of a Temporal failure's cause chain, outermost first."""
    parts: list[str] = []
    current: BaseException | None = exc.__cause__ if isinstance(exc, WorkflowFailureError) else exc
    while current is not None:
        message = str(current) or type(current).__name__
        if not parts or parts[-1] != message:
            parts.append(message)
        current = getattr(current, "cause", None) or current.__cause__
    return ": ".join(parts) if parts else str(exc)
