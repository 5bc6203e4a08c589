"""Tool-call overhead per sandbox backend, as ratios against running the command directly.

Run: ``.venv/bin/python tests/bench/tool_overhead.py [local] [bwrap] [docker] [--runs=N]``
(all backends and 30 runs by default). A backend that cannot run here is left out with the
reason. Docker uses a private daemon started with networking off and the test image built
locally (no pull); both go away at the end. Results and the command are recorded in
``docs/sandboxes.md``.

For the trivial command ``true`` it prints the median wall time of

direct   ``subprocess.run(["/bin/sh", "-c", "true"])``: the baseline;
warm     ``sandbox.run_command("true")`` on an open sandbox;
open     ``async with open_sandbox(spec) as sb: await sb.run_command("true")``;
tool     ``open_sandbox`` + ``run_builtin(sb, "run_shell_command", {"cmd": "true"})`` + close,
         what the tool activity does for every call today;

and each divided by the direct runs interleaved with it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from sandbox.docker_env import DockerDaemon, build_python_image, start_dockerd  # noqa: E402

from rath.backend import BackendSandboxSpec  # noqa: E402
from rath.backend.sandboxes import BwrapSandbox, open_sandbox  # noqa: E402
from rath.tools.builtins import run_builtin  # noqa: E402

COMMAND = "true"
COLUMNS = ("warm", "open", "tool")


def _median(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def direct() -> None:
    """The baseline: the command run directly with ``subprocess``."""
    subprocess.run(["/bin/sh", "-c", COMMAND], check=True)


async def _timed(runs: int, *variants: Callable[[], Awaitable[object]]) -> list[float]:
    """Median ms of each variant; variants alternate, so a drifting host affects all alike."""
    times: list[list[float]] = [[] for _ in variants]
    for _ in range(runs + 1):
        for samples, once in zip(times, variants, strict=True):
            start = time.perf_counter()
            await once()
            samples.append(time.perf_counter() - start)
    return [_median(samples[1:]) for samples in times]


async def through(spec: BackendSandboxSpec, runs: int) -> dict[str, float]:
    """Median ms of the command through the backend and directly, and their ratios.

    Each variant alternates with a direct run, so a host whose load drifts (other jobs on a
    2-core machine) skews the variant and its baseline alike.
    """

    async def opened() -> None:
        async with open_sandbox(spec) as sb:
            await sb.run_command(COMMAND)

    async def tool() -> None:
        async with open_sandbox(spec) as sb:
            outcome = await run_builtin(sb, "run_shell_command", {"cmd": COMMAND})
            assert outcome.ok, outcome.body

    async with open_sandbox(spec) as sandbox:
        base_warm, warm = await _timed(runs, direct, lambda: sandbox.run_command(COMMAND))
    base_open, cold, tool_call = await _timed(runs, direct, opened, tool)
    return {
        "direct": statistics.median([base_warm, base_open]),
        "warm": warm,
        "open": cold,
        "tool": tool_call,
        "warm_ratio": warm / base_warm,
        "open_ratio": cold / base_open,
        "tool_ratio": tool_call / base_open,
    }


def _docker_image(workdir: Path) -> tuple[DockerDaemon | None, str | None, str]:
    """Start a private daemon and build the image; ``(daemon, image, reason if not)``."""
    import docker

    if shutil.which("dockerd") is None:
        return None, None, "dockerd is not installed"
    try:
        daemon = start_dockerd(workdir / "dockerd")
    except RuntimeError as exc:
        return None, None, str(exc).splitlines()[0]
    os.environ["DOCKER_HOST"] = daemon.host
    client = docker.DockerClient(base_url=daemon.host)
    try:
        return daemon, build_python_image(client), ""
    finally:
        client.close()


def main() -> None:
    """Measure the backends named on the command line (all by default) and print a table."""
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--runs=")]
    runs = int(next((a.split("=")[1] for a in sys.argv[1:] if a.startswith("--runs=")), 30))
    backends = args or ["local", "bwrap", "docker"]
    workdir = Path(tempfile.mkdtemp(prefix="rath-overhead-"))
    daemon = None
    results: dict[str, dict[str, float]] = {}
    try:
        print(f"median of {runs} runs of `{COMMAND}` per cell; ratio = time / direct subprocess")
        print("| backend | direct | warm run_command | open + run_command | open + run_builtin |")
        print("| --- | --- | --- | --- | --- |")
        for name in backends:
            fields: dict[str, object] = {}
            if name == "bwrap" and (reason := BwrapSandbox.unavailable_reason()):
                print(f"| bwrap | skipped: {reason} | | | |")
                continue
            if name == "docker":
                daemon, image, reason = _docker_image(workdir)
                if image is None:
                    print(f"| docker | skipped: {reason} | | | |")
                    continue
                fields["image"] = image
            spec = BackendSandboxSpec(backend=name, working_dir=str(workdir / name), **fields)
            times = asyncio.run(through(spec, runs))
            results[name] = {c: round(times[f"{c}_ratio"], 2) for c in COLUMNS}
            cells = [f"{times[c]:.1f} ms (x{times[f'{c}_ratio']:.1f})" for c in COLUMNS]
            print(f"| {name} | {times['direct']:.1f} ms | " + " | ".join(cells) + " |", flush=True)
    finally:
        if daemon is not None:
            daemon.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
