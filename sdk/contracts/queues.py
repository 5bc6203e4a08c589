"""Task queues named after the code they need, so a worker only receives work it can run.

Generic work (session loops, LLM calls, built-in tools) goes to the shared queue
(``RATH_TASK_QUEUE``, ``rath`` by default), which every worker polls. Two kinds of work need
user code, and each gets a queue of its own that only workers holding that code poll:

- a durable ``forward`` of a ``Workflow`` class runs on ``<base>/workflow/<ClassName>``, and so
  do the agent runs it starts (children inherit their parent's queue);
- a call of a user tool runs on ``<base>/tool/<tool name>``, or, when the session is placed
  on a sandbox, on ``<owner's queue>/tool/<tool name>`` (the owner's affinity queue).

A script's in-process worker and ``rath worker --workflows/--tools`` poll the queues of what
they registered. A run orphaned by one script therefore waits, untouched by other scripts,
until a worker with its code comes up. The class name (not its module) names the queue, so a
script's ``__main__:Squad`` and a worker's ``pkg.squad:Squad`` meet on the same queue.
"""

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
