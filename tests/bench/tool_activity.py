"""Tool-call overhead through the activity: ``rath.tools.run`` round trip per backend.

Run: ``.venv/bin/python tests/bench/tool_activity.py [local] [bwrap] [docker] [--calls=N]``.
A workflow runs N sequential ``run_shell_command("true")`` tool activities of one session on a
real dev server and worker; the median per call is divided by the command run directly
(``subprocess``) in the same run. This is what a tool call costs a session end to end, minus
the LLM; the session's sandbox stays open between its calls (docker: one container). Docker
needs ``dockerd`` (a private daemon is started, as ``tool_overhead.py`` does, which measures
the sandbox part alone). Results go to ``docs/benchmarks.md``.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

from rath.backend import BackendSandboxSpec
from rath.backend.sandboxes import (
    available_backends,
)
from rath.contracts.tools import RunToolArgs, RunToolResult
from rath.plugin import RathPlugin
from rath.runtime.devserver import ensure_server, stop_server
from rath.session import Placement, assistant_turn_chunk
from rath.settings import Settings
from rath.store import ChunkStore


@workflow.defn(name="bench.ToolCalls", sandboxed=False)
class ToolCalls:
    """Run the same tool call ``calls`` times, one after another."""

    @workflow.run
    async def run(self, args: RunToolArgs, calls: int) -> float:
        start = workflow.time()
        for _ in range(calls):
            await workflow.execute_activity(
                "rath.tools.run",
                args,
                result_type=RunToolResult,
                start_to_close_timeout=timedelta(seconds=60),
            )
        return (workflow.time() - start) / calls


def direct(calls: int) -> float:
    """Median seconds of the command run directly."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        subprocess.run(["/bin/sh", "-c", "true"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def through_activity(home: Path, backend: str, calls: int, image: str | None) -> float:
    """Seconds per ``rath.tools.run`` call, as the worker's clock sees it."""
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    settings = Settings(
        home=home, address=None, namespace="default", queue_name=queue, store_dir=home / "store"
    )
    store = ChunkStore(settings.store_dir)
    wire = {
        "id": "c1",
        "type": "function",
        "function": {"name": "run_shell_command", "arguments": '{"cmd": "true"}'},
    }
    assistant = store.put_row(assistant_turn_chunk(content=None, tool_calls=[wire]))
    spec = BackendSandboxSpec(backend=backend, working_dir=str(home / f"ws-{backend}"), image=image)
    args = RunToolArgs(
        agent_name="bench",
        placement=Placement(spec=spec, sandbox_id=uuid.uuid4()),
        assistant=assistant,
        call_index=0,
    )
    address = ensure_server(home).address
    client = await Client.connect(address, plugins=[RathPlugin(settings=settings)])
    async with Worker(client, task_queue=queue, workflows=[ToolCalls]):
        await client.execute_workflow(
            ToolCalls.run, args=[args, 3], id=f"w-{uuid.uuid4()}", task_queue=queue
        )
        per_call: float = await client.execute_workflow(
            ToolCalls.run, args=[args, calls], id=f"b-{uuid.uuid4()}", task_queue=queue
        )
    return per_call


def main() -> None:
    calls = next((int(a.split("=")[1]) for a in sys.argv if a.startswith("--calls=")), 50)
    wanted = [a for a in sys.argv[1:] if not a.startswith("--")] or ["local", "bwrap"]
    home = Path(tempfile.mkdtemp(prefix="rath-bench-"))
    daemon, image = None, None
    try:
        if "docker" in wanted:
            from tool_overhead import _docker_image

            daemon, image, reason = _docker_image(home)
            if daemon is None:
                print(f"docker: {reason}, skipped")
        usable = set(available_backends())
        for backend in wanted:
            if backend not in usable:
                print(f"{backend}: not available here, skipped")
                continue
            per_call = asyncio.run(through_activity(home, backend, calls, image))
            baseline = direct(calls)
            print(
                f"{backend}: tool activity {per_call * 1000:.1f} ms per call, direct "
                f"{baseline * 1000:.1f} ms -> ratio {per_call / baseline:.1f}"
            )
    finally:
        stop_server(home)
        if daemon is not None:
            daemon.stop()


if __name__ == "__main__":
    main()
