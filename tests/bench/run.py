"""Rath's benchmarks, each printed as a ratio against a baseline measured in the same run.

Run: ``.venv/bin/python tests/bench/run.py [p1] [p2] [p3] [p3s] [p4] [p5] [p6] [p7] [i1]``
(all by default; ``--sessions N --runs N`` size P5). P5 runs a contender that is not a Rath
dependency: run it from ``.venv-bench`` (``bash tests/bench/setup_contenders.sh``).
Each uses a fresh embedded Temporal dev server in a temporary data dir and stops it at the end.
Results and the command are recorded in ``docs/benchmarks.md``.

P1  median time per loop round (zero-latency fake LLM in its own process + one tool call)
    / time per round of two bare no-op activities in a bare workflow, the two
    interleaved run by run (5 each, after a warm-up)                       target <= 1.2 (issue 30)
    also prints the round of a model call and a no-op (the least an agent round does) and
    the hand-written agent's round (the same model and tool call, no framework)
P2  history bytes of a 200-round session / bytes of the chunks it added    target <= 3
P3  fork to 64 agents (fake LLM with 100 ms latency) then merge, wall time
    / the same workflow with one agent                                       target <= 3
P3s fork to 256 and to 1,000 agents (zero-latency fake LLM), reduce-merged / bare Temporal's
    fan-out of as many child workflows of one no-op activity each          (recorded);
    also prints the forward's longest workflow tasks (the SDK fails one at 2 s)
P4  SIGKILL of the worker running an LLM call at round 300 of 500 -> the retried request
    on another worker (tests/bench/recovery.py)                             target <= 6 s
P5  throughput: 200 concurrent sessions of 7 model calls and 6 file writes, per second,
    interleaved 3 times on one server with a hand-written Temporal agent, the OpenAI Agents
    SDK on Temporal, and bare Temporal's 13 no-op activities (throughput.py)
    target: Rath >= 1.2x the Agents SDK and >= 0.9x the hand-written agent
P6  cold start: empty data dir -> first round done, in a new process       target <= 3 s
P7  median time per loop round (as P1) with the chunk store on S3 (a moto server in its own
    process, RATH_STORE_URL=s3://...) / the same with the default file store  (recorded)
I1  import time of rath.errors and rath.session in a fresh process (median of 7), beside
    pydantic's alone                                                         target < 0.2 s
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from rath.runtime.runtime import shutdown_runtime

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from recovery import recovery_after_kill  # noqa: E402  (found through the path set above)


def _fresh_home() -> Path:
    home = Path(tempfile.mkdtemp(prefix="rath-bench-"))
    os.environ["RATH_HOME"] = str(home)
    os.environ["RATH_TASK_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    for name in ("TEMPORAL_ADDRESS", "OPENAI_API_KEY", "RATH_STORE_URL"):
        os.environ.pop(name, None)
    return home


def one_run(agent: Any, workspace: Path, rounds: int) -> float:
    """Seconds for one session of ``agent`` through ``rounds`` loop rounds."""
    from rath.session import Session

    session = Session.from_user_message("go").to("local", spec=workspace)
    start = time.perf_counter()
    out = agent(session)
    out.synchronize()
    elapsed = time.perf_counter() - start
    assert len(out.chunk_table) == 2 * rounds
    return elapsed


def median_round(agent: Any, workspace: Path, rounds: int, repeats: int) -> float:
    """Median time per loop round of ``agent`` over ``repeats`` runs, after one warm-up run."""
    one_run(agent, workspace, rounds)  # warms up the worker
    return statistics.median(one_run(agent, workspace, rounds) for _ in range(repeats)) / rounds


class SideWorker:
    """A plain Temporal worker on its own loop thread, beside the embedded runtime.

    P1's baselines: ``BareRounds`` (two no-op activities per round) and the hand-written agent,
    each started on demand and timed from the client's side, as Rath's sessions are.
    """

    def __init__(self, address: str, workflows: list[type], activities: list[Callable[..., Any]]):
        self._address = address
        self._workflows = workflows
        self._activities = activities
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._started = threading.Event()
        self._stop: asyncio.Event | None = None
        self._client: Client | None = None
        self._queue = f"side-{uuid.uuid4().hex[:8]}"
        self._serving: concurrent.futures.Future[None] | None = None

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        self._client = await Client.connect(self._address)
        async with Worker(
            self._client,
            task_queue=self._queue,
            workflows=self._workflows,
            activities=self._activities,
        ):
            self._started.set()
            await self._stop.wait()

    def __enter__(self) -> SideWorker:
        self._thread.start()
        deadline = time.monotonic() + 60
        serving = self._serving = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)
        while not self._started.wait(0.1):
            if serving.done():
                serving.result()  # raises what stopped it
            if time.monotonic() > deadline:
                raise RuntimeError("P1: a baseline worker did not start within 60 s")
        return self

    def run(self, workflow_run: Callable[..., Any], *args: Any) -> float:
        """Seconds for one run of ``workflow_run(*args)`` on this worker."""

        async def one() -> float:
            assert self._client is not None
            start = time.perf_counter()
            await self._client.execute_workflow(
                workflow_run, args=args, id=f"side-{uuid.uuid4()}", task_queue=self._queue
            )
            return time.perf_counter() - start

        elapsed: float = asyncio.run_coroutine_threadsafe(one(), self._loop).result(timeout=120)
        return elapsed

    def close_on_loop(self, close: Callable[[], Any]) -> None:
        """Await ``close()`` on this worker's loop (an HTTP client must close where it ran)."""
        asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=30)

    def __exit__(self, *_: object) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._serving is not None:
            self._serving.result(timeout=60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


def p1(rounds: int = 50, repeats: int = 5) -> float:
    """Per-round time of the agent loop against two bare activities per round, interleaved.

    Two more contenders run in the same rounds, to show what any agent's round costs over the
    bare activities: a model call and a no-op (the least an agent round does: no transcript,
    no tool) and the hand-written agent (``handwritten.py``: the same model and tool call per
    round, without a framework).
    """
    from bare_workflow import BareRounds, ModelCall, ModelRounds, noop
    from handwritten import AgentActivities, HandwrittenAgent
    from support import FAST

    from rath import flow
    from rath.runtime.devserver import ensure_server, stop_server

    home = _fresh_home()
    try:
        address = ensure_server(home).address
        llm = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "bench" / "fake_llm.py"), str(rounds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            base_url = llm.stdout.readline().strip()  # type: ignore[union-attr]
            provider = flow.Provider(model="fake", base_url=base_url)
            agent = flow.Agent("bench", provider=provider, options=FAST)
            acts = AgentActivities(base_url, home / "handwritten")
            model = ModelCall(base_url)
            with (
                SideWorker(address, [BareRounds, ModelRounds], [noop, model.call]) as bare,
                SideWorker(address, [HandwrittenAgent], [acts.complete, acts.path_exists]) as hand,
            ):
                one_run(agent, home / "ws", rounds)  # the first runs warm up each worker
                bare.run(BareRounds.run, rounds)
                bare.run(ModelRounds.run, rounds)
                hand.run(HandwrittenAgent.run, "go", "workspace_path_exists")
                # Interleaved, so that the machine's drift (large on this box) weighs on all.
                loop_times, bare_times, model_times, hand_times = [], [], [], []
                for _ in range(repeats):
                    loop_times.append(one_run(agent, home / "ws", rounds))
                    bare_times.append(bare.run(BareRounds.run, rounds))
                    model_times.append(bare.run(ModelRounds.run, rounds))
                    hand_times.append(hand.run(HandwrittenAgent.run, "go", "workspace_path_exists"))
                hand.close_on_loop(acts.client.close)
                bare.close_on_loop(model.client.close)
        finally:
            llm.communicate(timeout=30)
    finally:
        shutdown_runtime()
        stop_server(home)
    loop_round = statistics.median(loop_times) / rounds
    bare_round = statistics.median(bare_times) / rounds
    hand_round = statistics.median(hand_times) / rounds
    model_round = statistics.median(model_times) / rounds
    ratio = loop_round / bare_round
    print(
        f"P1 per round: rath {loop_round * 1000:.1f} ms, two bare activities"
        f" {bare_round * 1000:.1f} ms -> ratio {ratio:.2f} (target <= 1.2);"
        f" the model call and a no-op {model_round * 1000:.1f} ms"
        f" ({model_round / bare_round:.2f} of bare);"
        f" hand-written agent {hand_round * 1000:.1f} ms"
        f" ({hand_round / bare_round:.2f} of bare; rath / hand-written"
        f" {loop_round / hand_round:.2f})"
    )
    return ratio


def p2(rounds: int = 200) -> float:
    """History bytes of a long session against the chunk bytes it added."""
    from rath.runtime.devserver import ensure_server, stop_server

    home = _fresh_home()
    address = ensure_server(home).address
    try:
        return _p2(home, address, rounds)
    finally:
        shutdown_runtime()
        stop_server(home)


def _p2(home: Path, address: str, rounds: int) -> float:
    from support import FAST, fake_provider

    from rath import flow
    from rath.session import Session
    from rath.testing import FakeChatServer, text_reply, tool_call_reply

    thought = "I will record the next observation in a file and then continue. " * 5
    body = "observation: the quick brown fox jumps over the lazy dog. " * 12
    script = [
        tool_call_reply(
            ("write_workspace_file", {"path": f"obs/{i}.txt", "content": body}), content=thought
        )
        for i in range(rounds - 1)
    ] + [text_reply("done")]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "bench", provider=fake_provider(server), options=FAST, max_tool_rounds=rounds
        )
        user = Session.from_user_message("go").to("local", spec=home / "ws")
        out = agent(user)
        rows = out.chunk_table.rows[1:]
    new_bytes = sum(len(row.canonical_json()) for row in rows)

    async def history_bytes() -> tuple[int, int, list[int]]:
        client = await Client.connect(address)
        total = events = 0
        per_round: list[int] = []
        async for wf in client.list_workflows(f"WorkflowId = '{out.run_id}'"):
            history = await client.get_workflow_handle(wf.id, run_id=wf.run_id).fetch_history()
            for event in history.events:
                size = event.ByteSize()
                total += size
                events += 1
                name = event.activity_task_scheduled_event_attributes.activity_type.name
                if name == "rath.llm.complete":
                    per_round.append(0)
                if per_round:
                    per_round[-1] += size
        return total, events, per_round

    total, events, per_round = asyncio.run(history_bytes())
    ratio = total / new_bytes
    print(
        f"P2 {rounds} rounds: history {total:,} B in {events} events, new chunks {new_bytes:,} B"
        f" -> ratio {ratio:.2f} (target <= 3); per round: round 10 {per_round[9]} B,"
        f" round {rounds - 1} {per_round[-2]} B"
    )
    return ratio


P6_SCRIPT = """
import time, sys
t0 = time.perf_counter()
from rath import flow
from rath.session import Session
from rath.testing import FakeChatServer, text_reply
t1 = time.perf_counter()
with FakeChatServer([text_reply("hello")]) as server:
    provider = flow.Provider(model="m", base_url=server.base_url, api_key="k")
    out = flow.Agent("x", provider=provider)(Session.from_user_message("hi"))
    out.synchronize()
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f}", flush=True)
import os; os._exit(0)
"""


def p3(agents: int = 64, latency: float = 0.1, repeats: int = 3) -> float:
    """Fan-out to ``agents`` concurrent child workflows and merge, against one agent."""
    from fanout import Fanout
    from support import FAST

    from rath import flow
    from rath.runtime.devserver import stop_server
    from rath.session import Session

    home = _fresh_home()
    llm = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "bench" / "fake_llm.py"), "1", str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = llm.stdout.readline().strip()  # type: ignore[union-attr]
        provider = flow.Provider(model="fake", base_url=base_url)

        def wall(n: int) -> float:
            module = Fanout(provider, n, options=FAST)
            times = []
            for _ in range(repeats + 1):  # the first run warms up the worker
                start = time.perf_counter()
                out = module(Session.from_user_message("go"))
                out.synchronize()
                times.append(time.perf_counter() - start)
            assert len(out.chunk_table) == 2 * n
            return statistics.median(times[1:])

        one = wall(1)
        many = wall(agents)
    finally:
        llm.communicate(timeout=30)
        shutdown_runtime()
        stop_server(home)
    ratio = many / one
    print(
        f"P3 fan-out: {agents} agents {many:.2f} s, one agent {one:.2f} s"
        f" (LLM latency {latency * 1000:.0f} ms) -> ratio {ratio:.2f} (target <= 3)"
    )
    return ratio


def p3s(sizes: tuple[int, ...] = (256, 1000)) -> float:
    """Fan-out of 256 and 1,000 agents against bare Temporal's child fan-out of the same size."""
    from bare_workflow import BareChild, BareFanout, noop
    from fanout import Fanout, longest_tasks
    from support import FAST

    from rath import flow
    from rath.runtime.devserver import ensure_server, stop_server
    from rath.session import Session

    home = _fresh_home()
    llm = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "bench" / "fake_llm.py"), "1", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    ratios = []
    try:
        address = ensure_server(home).address
        provider = flow.Provider(model="fake", base_url=llm.stdout.readline().strip())  # type: ignore[union-attr]

        async def bare(n: int) -> float:
            client = await Client.connect(address)
            queue = f"bare-{uuid.uuid4().hex[:8]}"
            workflows, activities = [BareFanout, BareChild], [noop]
            async with Worker(client, task_queue=queue, workflows=workflows, activities=activities):
                start = time.perf_counter()
                await client.execute_workflow(
                    BareFanout.run, n, id=f"bare-{uuid.uuid4()}", task_queue=queue
                )
                return time.perf_counter() - start

        for n in sizes:
            module = Fanout(provider, n, options=FAST)
            start = time.perf_counter()
            out = module(Session.from_user_message("go"))
            out.synchronize()
            rath_wall = time.perf_counter() - start
            assert len(out.chunk_table) == 2 * n and out.run_id is not None
            tasks = asyncio.run(longest_tasks(address, out.run_id))
            print(f"P3s forward of {n}: longest workflow tasks {[round(t, 3) for t in tasks]} s")
            bare_wall = asyncio.run(bare(n))
            ratios.append(rath_wall / bare_wall)
            print(
                f"P3s fan-out of {n}: Rath {rath_wall:.1f} s, bare child fan-out {bare_wall:.1f} s"
                f" -> ratio {ratios[-1]:.2f}"
            )
    finally:
        llm.communicate(timeout=30)
        shutdown_runtime()
        stop_server(home)
    return max(ratios)


def p5(sessions: int = 200, runs: int = 3) -> dict[str, float]:
    """Concurrent sessions per second: Rath, a hand-written agent, the Agents SDK, bare.

    The four contenders run on one server with one fake model in its own process, as a real
    model would be, interleaved ``runs`` times (``throughput.py``). Each prints its rate and
    the CPU time it costs per session, in this process (client and worker), in the dev
    server and in the fake model: on a machine whose cores are saturated, that sets the rate.
    """
    from throughput import AGENTS_SDK_MISSING, agents_sdk_available
    from throughput import p5 as measure

    if not agents_sdk_available():
        raise SystemExit(AGENTS_SDK_MISSING)
    return measure(_fresh_home(), sessions, runs)


def p4() -> float:
    """Seconds from SIGKILL of the worker running an LLM call to its retry on another."""
    return recovery_after_kill(_fresh_home())


def p6() -> float:
    """Cold start from an empty data dir to the first round done, in a fresh process."""
    from rath.runtime.devserver import ensure_server, stop_server

    home = _fresh_home()
    env = dict(os.environ)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", P6_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    process = time.perf_counter() - started
    stop_server(home)
    imports, first_round = (float(x) for x in result.stdout.split())
    # Baseline: the dev server alone, cold, on another empty data dir.
    base_home = _fresh_home()
    start = time.perf_counter()
    ensure_server(base_home)
    server_only = time.perf_counter() - start
    stop_server(base_home)
    print(
        f"P6 cold start: first round done {first_round:.2f} s after imports ({imports:.2f} s);"
        f" whole process {process:.2f} s; dev server alone {server_only:.2f} s"
        f" -> {first_round:.2f} s (target <= 3 s)"
    )
    return first_round


def p7(rounds: int = 30, repeats: int = 3) -> float:
    """Per-round time of the agent loop with the chunk store on S3 against the file store."""
    import boto3
    from support import FAST

    from rath import flow
    from rath.runtime.devserver import stop_server

    home = _fresh_home()
    procs = [
        subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "bench" / script), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for script, args in (("fake_llm.py", [str(rounds)]), ("s3_server.py", []))
    ]
    try:
        base_url, endpoint = (p.stdout.readline().strip() for p in procs)  # type: ignore[union-attr]
        os.environ.update(
            AWS_ENDPOINT_URL=endpoint,
            AWS_ALLOW_HTTP="true",
            AWS_REGION="us-east-1",
            AWS_ACCESS_KEY_ID="bench-key-id",  # moto takes any credentials: obviously fake ones
            AWS_SECRET_ACCESS_KEY="bench-secret",
        )
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(
            Bucket="rath-bench"
        )
        provider = flow.Provider(model="fake", base_url=base_url)
        agent = flow.Agent("bench", provider=provider, options=FAST)

        def per_round(store_url: str | None) -> float:
            shutdown_runtime()  # the embedded worker reads the store URL when it starts
            os.environ["RATH_TASK_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
            if store_url:
                os.environ["RATH_STORE_URL"] = store_url
            else:
                os.environ.pop("RATH_STORE_URL", None)
            return median_round(agent, home / "ws", rounds, repeats)

        file_round = per_round(None)
        s3_round = per_round("s3://rath-bench/p7")
    finally:
        for proc in procs:
            proc.communicate(timeout=30)
        shutdown_runtime()
        stop_server(home)
        for name in ("AWS_ENDPOINT_URL", "AWS_ALLOW_HTTP", "AWS_REGION", "RATH_STORE_URL"):
            os.environ.pop(name, None)
        os.environ.pop("AWS_ACCESS_KEY_ID", None)
        os.environ.pop("AWS_SECRET_ACCESS_KEY", None)
    ratio = s3_round / file_round
    print(
        f"P7 per round: S3 store (moto) {s3_round * 1000:.1f} ms, file store"
        f" {file_round * 1000:.1f} ms -> ratio {ratio:.2f}"
    )
    return ratio


IMPORT_SCRIPT = """
import sys, time
start = time.perf_counter()
import {module}
print(time.perf_counter() - start, "temporalio.client" in sys.modules)
"""


def _import_time(module: str, runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_SCRIPT.format(module=module)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.split()
        if out[1] != "False":
            raise AssertionError(f"import {module} loaded temporalio.client")
        times.append(float(out[0]))
    return statistics.median(times)


def i1() -> float:
    """Import time of the value floor: rath.errors and rath.session, against pydantic alone."""
    base = _import_time("pydantic")
    errors = _import_time("rath.errors")
    session = _import_time("rath.session")
    print(
        f"I1 imports: rath.errors {errors:.3f} s, rath.session {session:.3f} s"
        f" (pydantic alone {base:.3f} s; rath.session / pydantic {session / base:.2f});"
        " neither loads temporalio.client (target < 0.2 s)"
    )
    return max(errors, session)


def main() -> None:
    """Run the benchmarks named on the command line (all by default)."""
    benchmarks: dict[str, Callable[[], float | dict[str, float]]] = {
        "p1": p1,
        "p2": p2,
        "p3": p3,
        "p3s": p3s,
        "p4": p4,
        "p5": lambda: p5(args.sessions, args.runs),
        "p6": p6,
        "p7": p7,
        "i1": i1,
    }
    parser = argparse.ArgumentParser(description="Rath's benchmarks (docs/benchmarks.md).")
    parser.add_argument("names", nargs="*", metavar="NAME", help=" ".join(benchmarks))
    parser.add_argument("--sessions", type=int, default=200, help="P5's concurrent sessions")
    parser.add_argument("--runs", type=int, default=3, help="P5's interleaved runs")
    args = parser.parse_args()
    unknown = [name for name in args.names if name not in benchmarks]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}: choose from {', '.join(benchmarks)}")
    results: dict[str, Any] = {}
    for name in args.names or list(benchmarks):
        try:
            value = benchmarks[name]()
            results[name] = value if isinstance(value, dict) else round(value, 3)
        finally:
            shutdown_runtime()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)
