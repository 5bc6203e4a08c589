"""The Temporal workers of one Rath worker process: shared queue and own. See docs/modules.md."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterable
from datetime import timedelta

from temporalio.api.workflowservice.v1 import (
    DescribeWorkerDeploymentRequest,
    SetWorkerDeploymentCurrentVersionRequest,
)
from temporalio.client import Client
from temporalio.common import VersioningBehavior, WorkerDeploymentVersion
from temporalio.service import RPCError
from temporalio.worker import Worker, WorkerDeploymentConfig

from rath.contracts.modules import registered_targets
from rath.contracts.queues import tool_queue, workflow_queue
from rath.errors import ConfigError
from rath.runtime.activity_log import quiet_activity_failures
from rath.settings import Settings
from rath.tools.registry import TOOLS

STICKY_FALLBACK = timedelta(seconds=2)
"""How long a workflow task waits for the worker that cached the run before any worker takes it
(Temporal's default is 10 s, which a SIGKILLed worker would add to every session it held)."""

_BEHAVIORS = {
    "auto_upgrade": VersioningBehavior.AUTO_UPGRADE,
    "pinned": VersioningBehavior.PINNED,
}


def deployment_config(settings: Settings) -> WorkerDeploymentConfig | None:
    """The worker-versioning config ``settings`` ask for, or ``None`` for unversioned workers."""
    if settings.deployment_name is None or settings.build_id is None:
        return None
    return WorkerDeploymentConfig(
        version=WorkerDeploymentVersion(settings.deployment_name, settings.build_id),
        use_worker_versioning=True,
        default_versioning_behavior=_BEHAVIORS[settings.versioning_behavior],
    )


def rath_workers(
    client: Client,
    settings: Settings,
    *,
    versioned: bool = False,
    code_queues: Iterable[str] = (),
) -> list[Worker]:
    """The shared-queue worker, the affinity-queue worker, and one per queue of user code."""
    # What the process holds by now (modules, the plugin's registrations) stays: moved out of
    # the collector's sight, so a full collection in the middle of a workflow task walks only
    # what runs made. Half of a 1,000-agent forward's first task was such collections, and a
    # task past 2 s trips the SDK's deadlock detector, which can leave the run unevictable.
    gc.freeze()
    queues = (settings.task_queue, settings.affinity_queue, *code_queues)
    return [code_worker(client, settings, queue, versioned=versioned) for queue in queues]


def code_worker(
    client: Client, settings: Settings, queue: str, *, versioned: bool = False
) -> Worker:
    """A worker polling ``queue``, with every Rath workflow and activity (from the plugin)."""
    quiet_activity_failures()
    return Worker(
        client,
        task_queue=queue,
        deployment_config=deployment_config(settings) if versioned else None,
        sticky_queue_schedule_to_start_timeout=STICKY_FALLBACK,
        graceful_shutdown_timeout=timedelta(seconds=settings.shutdown_grace_seconds),
    )


def registered_code_queues(settings: Settings) -> list[str]:
    """The queues of every ``Workflow`` class and user tool registered in this process."""
    base = settings.task_queue
    queues = {workflow_queue(base, target) for target in registered_targets()}
    for name in TOOLS.names():  # shared calls, and those of sandboxes this worker owns
        queues |= {tool_queue(base, name), tool_queue(settings.affinity_queue, name)}
    return sorted(queues)


async def set_current_version(client: Client, settings: Settings, *, timeout: float = 30.0) -> bool:
    """Make this worker's deployment version the current one; False if it already was."""
    if settings.deployment_name is None or settings.build_id is None:
        raise ConfigError("set the current version of what? RATH_DEPLOYMENT_NAME is unset")
    namespace = client.namespace
    service = client.workflow_service
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        try:
            described = await service.describe_worker_deployment(
                DescribeWorkerDeploymentRequest(
                    namespace=namespace, deployment_name=settings.deployment_name
                )
            )
            current = described.worker_deployment_info.routing_config.current_deployment_version
            if current.build_id == settings.build_id:
                return False
            await service.set_worker_deployment_current_version(
                SetWorkerDeploymentCurrentVersionRequest(
                    namespace=namespace,
                    deployment_name=settings.deployment_name,
                    build_id=settings.build_id,
                    ignore_missing_task_queues=True,
                    identity=f"rath worker {settings.worker_id}",
                )
            )
            return True
        except RPCError as exc:
            if time.monotonic() + delay > deadline:
                raise ConfigError(
                    f"could not make {settings.deployment_name}.{settings.build_id} the current "
                    f"worker deployment version within {timeout:.0f} s: {exc.message}"
                ) from exc
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
