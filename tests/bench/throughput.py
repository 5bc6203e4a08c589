"""P5: concurrent agent sessions per second, Rath against what users would run instead.

Four contenders on one embedded dev server with one fake model (its own process), interleaved
``runs`` times (Rath, hand-written, Agents SDK, bare; then again), each run a warm-up session
and then ``sessions`` concurrent sessions of 7 model calls and 6 file writes:

- **Rath**: ``flow.Agent`` on sessions placed on a local sandbox (``write_workspace_file``);
- **hand-written**: the ``openai`` SDK in an LLM activity, a file-write activity, the
  transcript in workflow state (``handwritten.py``);
- **Agents SDK**: the OpenAI Agents SDK on Temporal (``agents_sdk.py``; needs
  ``.venv-bench``, see ``setup_contenders.sh``);
- **bare**: 13 sequential no-op activities per workflow (no model, no transcript, no file).

Each run prints the rate and the CPU per session of this process (client and worker), the dev
server and the fake model; the summary prints the medians, Rath's ratios and each
contender's change from the first run to the last.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bare_workflow import BareSession, noop
from handwritten import AgentActivities, HandwrittenAgent
from openai import AsyncOpenAI
from support import FAST
from temporalio.client import Client
from temporalio.worker import Worker

from rath import flow
from rath.runtime.devserver import ensure_server, stop_server
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session

FAKE_MODEL = Path(__file__).with_name("fake_llm.py")
TOOL_ROUNDS = 6
"""File writes per session; the model is called once more for the final answer."""

AGENTS_SDK_MISSING = (
    "P5 needs the OpenAI Agents SDK for one of its contenders: run"
    " `bash tests/bench/setup_contenders.sh`, then `.venv-bench/bin/python tests/bench/run.py p5`"
)


def cpu_seconds(processes: dict[str, int]) -> dict[str, float]:
    """User + system CPU seconds so far of each named process (Linux ``/proc``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for name, pid in processes.items():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        seconds[name] = (int(fields[11]) + int(fields[12])) / ticks
    return seconds


@dataclass
class Sample:
    """One contender's burst: its rate and its CPU milliseconds per session, per process."""

    rate: float
    cpu_ms: dict[str, float]

    def describe(self) -> str:
        """``6.9/s, CPU 262 ms (worker 116, server 146, model 12)``."""
        parts = ", ".join(f"{name} {ms:.0f}" for name, ms in self.cpu_ms.items())
        return f"{self.rate:.2f}/s, CPU {sum(self.cpu_ms.values()):.0f} ms ({parts})"


@dataclass
class Probe:
    """Wall clock and CPU of the processes between :meth:`start` and :meth:`stop`."""

    processes: dict[str, int]
    sample: Sample | None = None
    _cpu: dict[str, float] = field(default_factory=dict)
    _start: float = 0.0

    def start(self) -> None:
        """Start measuring (after the contender's warm-up)."""
        self._cpu, self._start = cpu_seconds(self.processes), time.perf_counter()

    def stop(self, sessions: int) -> None:
        """Stop measuring ``sessions`` finished sessions."""
        wall = time.perf_counter() - self._start
        now = cpu_seconds(self.processes)
        cpu = {name: 1000 * (now[name] - self._cpu[name]) / sessions for name in self.processes}
        self.sample = Sample(sessions / wall, cpu)


@dataclass(frozen=True)
class Bench:
    """What every contender shares: the server, the fake model, a directory for workspaces."""

    address: str
    base_url: str
    root: Path


Contender = Callable[[Bench, int, int, Probe], Awaitable[None] | None]


def rath_sessions(bench: Bench, sessions: int, run: int, probe: Probe) -> None:
    """Rath: one ``flow.Agent`` over sessions on local sandboxes, via the embedded worker."""
    provider = flow.Provider(model="fake", base_url=bench.base_url)
    agent = flow.Agent("bench", provider=provider, options=FAST)
    root = bench.root / f"rath-{run}"
    try:
        agent(Session.from_user_message("go").to("local", spec=root / "warm")).synchronize()
        probe.start()
        outs = [
            agent(Session.from_user_message("go").to("local", spec=root / f"ws{i}"))
            for i in range(sessions)
        ]
        for out in outs:
            out.synchronize()
        probe.stop(sessions)
    finally:
        shutdown_runtime()  # no idle Rath worker while the others run


async def _burst(
    client: Client, workflow: Any, arg: object, queue: str, sessions: int, probe: Probe
) -> None:
    """One warm-up run of ``workflow``, then ``sessions`` concurrent ones, measured."""

    def start() -> Awaitable[Any]:
        return client.execute_workflow(workflow, arg, id=f"bench-{uuid.uuid4()}", task_queue=queue)

    await start()
    probe.start()
    await asyncio.gather(*(start() for _ in range(sessions)))
    probe.stop(sessions)


async def handwritten_sessions(bench: Bench, sessions: int, run: int, probe: Probe) -> None:
    """The hand-written Temporal agent (``handwritten.py``)."""
    client = await Client.connect(bench.address)
    queue = f"handwritten-{uuid.uuid4().hex[:8]}"
    acts = AgentActivities(bench.base_url, bench.root / f"handwritten-{run}")
    async with Worker(
        client,
        task_queue=queue,
        workflows=[HandwrittenAgent],
        activities=[acts.complete, acts.write_file],
    ):
        await _burst(client, HandwrittenAgent.run, "go", queue, sessions, probe)
    await acts.client.close()  # on this loop: closing it after the loop has gone fails


async def agents_sdk_sessions(bench: Bench, sessions: int, run: int, probe: Probe) -> None:
    """The OpenAI Agents SDK on Temporal (``agents_sdk.py``)."""
    from agents_sdk import AgentsSdkAgent, FileTools, plugin  # only in .venv-bench

    model = AsyncOpenAI(base_url=bench.base_url, api_key="bench-key")
    client = await Client.connect(bench.address, plugins=[plugin(model)])
    queue = f"agents-{uuid.uuid4().hex[:8]}"
    tools = FileTools(bench.root / f"agents-{run}")
    async with Worker(
        client,
        task_queue=queue,
        workflows=[AgentsSdkAgent],
        activities=[tools.write_workspace_file],
    ):
        await _burst(client, AgentsSdkAgent.run, "go", queue, sessions, probe)
    await model.close()


async def bare_sessions(bench: Bench, sessions: int, run: int, probe: Probe) -> None:
    """Bare Temporal: 13 sequential no-op activities per workflow."""
    client = await Client.connect(bench.address)
    queue = f"bare-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[BareSession], activities=[noop]):
        await _burst(client, BareSession.run, 2 * TOOL_ROUNDS + 1, queue, sessions, probe)


CONTENDERS: dict[str, Contender] = {
    "Rath": rath_sessions,
    "hand-written": handwritten_sessions,
    "Agents SDK": agents_sdk_sessions,
    "bare": bare_sessions,
}


def agents_sdk_available() -> bool:
    """Whether this interpreter has the Agents SDK contender's packages."""
    try:
        import agents  # noqa: F401
        import temporalio.contrib.openai_agents  # noqa: F401
    except ImportError:
        return False
    return True


def interleaved(
    bench: Bench, processes: dict[str, int], sessions: int, runs: int
) -> dict[str, list[Sample]]:
    """Every contender once per run, in :data:`CONTENDERS`' order, ``runs`` times."""
    samples: dict[str, list[Sample]] = {name: [] for name in CONTENDERS}
    for run in range(runs):
        for name, contender in CONTENDERS.items():
            probe = Probe(processes)
            pending = contender(bench, sessions, run, probe)
            if inspect.isawaitable(pending):
                asyncio.run(_awaited(pending))
            assert probe.sample is not None
            samples[name].append(probe.sample)
            print(f"P5 run {run + 1} {name}: {probe.sample.describe()}", flush=True)
    return samples


async def _awaited(pending: Awaitable[None]) -> None:
    await pending


def summary(samples: dict[str, list[Sample]]) -> dict[str, float]:
    """Print the medians, Rath's ratios and each contender's change; return the ratios."""
    rates = {name: statistics.median(s.rate for s in runs) for name, runs in samples.items()}
    cpu = {
        name: {proc: statistics.median(s.cpu_ms[proc] for s in runs) for proc in runs[0].cpu_ms}
        for name, runs in samples.items()
    }
    for name, rate in rates.items():
        print(f"P5 median {name}: {Sample(rate, cpu[name]).describe()}")
    ratios = {
        "rath_vs_agents_sdk": rates["Rath"] / rates["Agents SDK"],
        "rath_vs_handwritten": rates["Rath"] / rates["hand-written"],
        "rath_vs_bare": rates["Rath"] / rates["bare"],
    }
    print(
        f"P5 ratios: Rath / Agents SDK {ratios['rath_vs_agents_sdk']:.2f} (target >= 1.2),"
        f" Rath / hand-written {ratios['rath_vs_handwritten']:.2f} (target >= 0.9),"
        f" Rath / bare {ratios['rath_vs_bare']:.2f}"
    )
    changes = ", ".join(
        f"{name} {100 * (runs[-1].rate / runs[0].rate - 1):+.0f}%" for name, runs in samples.items()
    )
    print(f"P5 change from run 1 to run {len(next(iter(samples.values())))}: {changes}")
    return {key: round(value, 3) for key, value in ratios.items()}


def p5(home: Path, sessions: int, runs: int) -> dict[str, float]:
    """Start a server in ``home`` and the fake model, run the contenders, print, stop all.

    Needs the Agents SDK (:func:`agents_sdk_available`).
    """
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    argv = [sys.executable, str(FAKE_MODEL), str(TOOL_ROUNDS + 1), "0", "write_workspace_file"]
    llm = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        server = ensure_server(home)
        base_url = llm.stdout.readline().strip()  # type: ignore[union-attr]
        processes = {"worker": os.getpid(), "server": server.pid, "model": llm.pid}
        print(
            f"P5: {sessions} concurrent sessions of {TOOL_ROUNDS + 1} model calls and"
            f" {TOOL_ROUNDS} file writes, {runs} interleaved runs",
            flush=True,
        )
        bench = Bench(server.address, base_url, home / "ws")
        samples = interleaved(bench, processes, sessions, runs)
    finally:
        llm.communicate(timeout=30)
        shutdown_runtime()
        stop_server(home)
    return summary(samples)
