"""Run a worker against ``TEMPORAL_ADDRESS`` (or the embedded dev server when it is unset).

Configuration comes from the environment (see :class:`rath.settings.Settings`):
``TEMPORAL_ADDRESS``, ``TEMPORAL_NAMESPACE``, ``RATH_TASK_QUEUE``, ``RATH_HOME``,
``RATH_STORE_URL`` (or ``RATH_STORE_DIR``), and the model credentials the worker resolves
(``OPENAI_API_KEY``, ...). With ``RATH_DEPLOYMENT_NAME`` and ``RATH_BUILD_ID`` it joins a
Temporal worker deployment (worker versioning, see docs/operators.md). ``rath worker --check``
is a health check. A configuration error exits 2 with one line naming the fix.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys

from temporalio.service import RPCError

from rath.contracts.modules import register_workflow_target, registered_targets
from rath.errors import ConfigError, ConnectError
from rath.plugin import RathPlugin
from rath.runtime.connect import connect
from rath.runtime.devserver import ensure_server
from rath.runtime.search_attributes import usable_search_attributes
from rath.runtime.workers import rath_workers, registered_code_queues, set_current_version
from rath.settings import Settings
from rath.store import check_store, store_url
from rath.telemetry import flush as flush_telemetry
from rath.tools.registry import TOOLS, register_tool_target


async def run_worker(settings: Settings | None = None) -> None:
    """Connect and run a worker until SIGINT/SIGTERM, then shut down gracefully."""
    settings = settings or Settings.from_env()
    await asyncio.to_thread(check_store, settings)  # a missing bucket: one line, before polling
    address = settings.address
    if address is None:
        address = (await asyncio.to_thread(ensure_server, settings.home)).address
    client = await connect(settings, address, [RathPlugin(settings=settings)])
    await usable_search_attributes(client, settings)  # register them, or warn once
    code_queues = registered_code_queues(settings)
    workers = rath_workers(client, settings, versioned=True, code_queues=code_queues)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(
        f"rath worker: {address} namespace={settings.namespace} "
        f"task queue={settings.task_queue} (own: {settings.affinity_queue}"
        + "".join(f", {queue}" for queue in code_queues)
        + ") "
        f"store={store_url(settings)} "
        f"version={_version(settings)} "
        f"workflows={','.join(registered_targets()) or '-'} tools={','.join(TOOLS.names()) or '-'}",
        flush=True,
    )
    async with contextlib.AsyncExitStack() as running:
        for worker in workers:
            await running.enter_async_context(worker)
        if settings.versioned and settings.set_current_version:
            changed = await set_current_version(client, settings)
            print(
                f"rath worker: {_version(settings)} is the current version"
                + ("" if changed else " (already)"),
                flush=True,
            )
        await stop.wait()
        # All at once: a worker still polling while another drains takes new work it may
        # not finish (its exit stack would stop them one after another).
        await asyncio.gather(*(worker.shutdown() for worker in workers))
    print("rath worker: stopped", flush=True)


async def check(settings: Settings | None = None, *, timeout: float = 5.0) -> str:
    """Check the store, connect as a worker would and ask the server about the namespace."""
    from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest

    from rath.runtime.devserver import server_status

    settings = settings or Settings.from_env()
    await asyncio.to_thread(check_store, settings)
    address = settings.address
    if address is None:
        info = await asyncio.to_thread(server_status, settings.home)
        if info is None:
            raise ConfigError(
                f"TEMPORAL_ADDRESS is unset and no embedded server runs for {settings.home}"
            )
        address = info.address
    try:
        async with asyncio.timeout(timeout):
            client = await connect(settings, address, [])
            await client.workflow_service.describe_namespace(
                DescribeNamespaceRequest(namespace=settings.namespace)
            )
    except TimeoutError as exc:
        raise ConfigError(
            f"Temporal at TEMPORAL_ADDRESS={address} did not answer within {timeout:.0f} s"
        ) from exc
    except ConnectError:
        raise  # already one line naming the setting
    except RPCError as exc:
        raise ConfigError(
            f"Temporal at TEMPORAL_ADDRESS={address}, "
            f"TEMPORAL_NAMESPACE={settings.namespace}: {exc}"
        ) from exc
    return (
        f"{address} namespace={settings.namespace} task queue={settings.task_queue} "
        f"store={store_url(settings)} ok"
    )


def _version(settings: Settings) -> str:
    if not settings.versioned:
        return "unversioned"
    return f"{settings.deployment_name}.{settings.build_id} ({settings.versioning_behavior})"


def _check() -> int:
    try:
        print(f"rath worker --check: {asyncio.run(check())}", flush=True)
        return 0
    except ConfigError as exc:
        print(f"rath worker --check: {exc}", file=sys.stderr, flush=True)
        return 1


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``rath worker`` and ``python -m rath.worker``."""
    parser = argparse.ArgumentParser(prog="rath worker", description=__doc__)
    parser.add_argument("--task-queue", help="override RATH_TASK_QUEUE")
    parser.add_argument(
        "--workflows",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help="a rath.flow.Workflow class whose durable forward this worker runs "
        "(repeatable; comma-separated lists work too)",
    )
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="MODULE:NAME",
        help="a user tool (FlowToolCall class or instance, or @tool function) this worker runs "
        "(repeatable; comma-separated lists work too)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="health check: exit 0 if Temporal answers for the namespace, else 1 (one line)",
    )
    args = parser.parse_args(argv)
    if args.task_queue:
        os.environ["RATH_TASK_QUEUE"] = args.task_queue
    try:
        for target in _targets(args.workflows):
            register_workflow_target(target)
        for target in _targets(args.tools):
            register_tool_target(target)
    except ConfigError as exc:
        parser.error(str(exc))
    if args.check:
        code = _check()
        sys.stdout.flush()
        os._exit(code)
    try:
        asyncio.run(run_worker())
        code = 0
    except ConfigError as exc:  # e.g. a bad RATH_STORE_URL: one line naming the fix
        print(f"rath worker: {exc}", file=sys.stderr, flush=True)
        code = 2
    except KeyboardInterrupt:
        code = 130
    flush_telemetry()  # os._exit skips the providers' flush at exit
    sys.stdout.flush()
    sys.stderr.flush()
    # The Temporal core can abort during interpreter finalisation (sdk-python#300);
    # a worker that stopped cleanly must exit 0, so skip finalisation.
    os._exit(code)


def _targets(items: list[str]) -> list[str]:
    return [t.strip() for item in items for t in item.split(",") if t.strip()]
