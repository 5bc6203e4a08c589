"""Readable messages for Temporal failures (shared by client code and workflow code)."""

from __future__ import annotations


def describe_failure(exc: BaseException) -> str:
    """The messages of a failure's cause chain, outermost first, repeats dropped."""
    parts: list[str] = []
    current: BaseException | None = exc
    while current is not None:
        message = str(current) or type(current).__name__
        if not parts or parts[-1] != message:
            parts.append(message)
        current = getattr(current, "cause", None) or current.__cause__
    return ": ".join(parts) if parts else str(exc)
