"""Task queues named after the code they need (workers get what they run). See docs/modules.md."""

from __future__ import annotations

WORKFLOW_PART = "/workflow/"
TOOL_PART = "/tool/"


def workflow_queue(base: str, target: str) -> str:
    """The queue of durable forwards of the class ``target`` (``module:QualName``)."""
    return f"{base}{WORKFLOW_PART}{target.rpartition(':')[2]}"


def tool_queue(base: str, tool_name: str) -> str:
    """The queue of calls of the user tool ``tool_name``."""
    return f"{base}{TOOL_PART}{tool_name}"


def base_queue(queue: str) -> str:
    """The shared queue a code queue (or the shared queue itself) belongs to."""
    for part in (WORKFLOW_PART, TOOL_PART):
        if part in queue:
            return queue.split(part, 1)[0]
    return queue


def code_of(queue: str) -> tuple[str, str] | None:
    """``("workflow" | "tool", name)`` for a code queue; ``None`` for the shared one."""
    for kind, part in (("workflow", WORKFLOW_PART), ("tool", TOOL_PART)):
        if part in queue:
            return kind, queue.split(part, 1)[1]
    return None
