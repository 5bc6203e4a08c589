"""Run a worker against ``TEMPORAL_ADDRESS`` (or the embedded dev server when it is unset).

Configuration comes from the environment (see :class:`rath.settings.Settings`):
``TEMPORAL_ADDRESS``, ``TEMPORAL_NAMESPACE``, ``RATH_TASK_QUEUE``, ``RATH_HOME``,
``RATH_STORE_URL`` (or ``RATH_STORE_DIR``), and the model credentials the worker resolves
(``OPENAI_API_KEY``, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys

from temporalio.client import Client

from rath._runtime.devserver import ensure_server
from rath._runtime.workers import rath_workers
from rath.errors import ConfigError
from rath.plugin import RathPlugin
from rath.settings import Settings
from rath.store import store_url
from rath.tools._custom import TOOLS, register_tool_target
from rath.workflows._module_registry import register_workflow_target, registered_targets


async def run_worker(settings: Settings | None = None) -> None:
    """Connect and run a worker until SIGINT/SIGTERM, then shut down gracefully."""
    settings = settings or Settings.from_env()
    address = settings.address
    if address is None:
        address = (await asyncio.to_thread(ensure_server, settings.home)).address
    client = await Client.connect(
        address, namespace=settings.namespace, plugins=[RathPlugin(settings=settings)]
    )
    workers = rath_workers(client, settings)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(
        f"rath worker: {address} namespace={settings.namespace} "
        f"task queue={settings.task_queue} (own: {settings.affinity_queue}) "
        f"store={store_url(settings)} "
        f"workflows={','.join(registered_targets()) or '-'} tools={','.join(TOOLS.names()) or '-'}",
        flush=True,
    )
    async with contextlib.AsyncExitStack() as running:
        for worker in workers:
            await running.enter_async_context(worker)
        await stop.wait()
    print("rath worker: stopped", flush=True)


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
    try:
        asyncio.run(run_worker())
        code = 0
    except KeyboardInterrupt:
        code = 130
    except ConfigError as exc:  # e.g. a bad RATH_STORE_URL: one line naming the fix
        print(f"rath worker: {exc}", file=sys.stderr)
        code = 2
    sys.stdout.flush()
    sys.stderr.flush()
    # The Temporal core can abort during interpreter finalisation (sdk-python#300);
    # a worker that stopped cleanly must exit 0, so skip finalisation.
    os._exit(code)


def _targets(items: list[str]) -> list[str]:
    return [t.strip() for item in items for t in item.split(",") if t.strip()]
