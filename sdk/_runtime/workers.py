"""The Temporal workers one Rath worker process runs: the shared queue, and its own.

Every worker polls the shared task queue (workflows, LLM calls, everything) and its own
*affinity* queue, where the tool calls of the sandboxes it opened are routed (Temporal's
worker-specific task queue pattern): a session's workspace lives on the host that opened it,
so its tools always run there.
"""

from __future__ import annotations

from temporalio.client import Client
from temporalio.worker import Worker

from rath.settings import Settings


def rath_workers(client: Client, settings: Settings) -> list[Worker]:
    """The shared-queue worker and the affinity-queue worker (``client`` carries RathPlugin)."""
    return [
        Worker(client, task_queue=settings.task_queue),
        Worker(client, task_queue=settings.affinity_queue),
    ]
