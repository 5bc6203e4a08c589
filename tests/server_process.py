"""A third-party server the tests start as a subprocess: a free port, health, a bounded stop."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server_process(
    argv: Sequence[str],
    *,
    health_url: str,
    log: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
    graceful: bool = True,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``argv`` (output to ``log``) until ``health_url`` answers 200; stop it afterwards.

    ``graceful=False`` kills the server instead of terminating it, for a server whose data
    is thrown away with the test and whose graceful stop only costs time.

    Raises:
        RuntimeError: The server exited or was not healthy within ``timeout`` seconds (the
            message ends with the tail of its log).
    """
    with log.open("wb") as out:
        process = subprocess.Popen(
            list(argv), stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    try:
        _wait_healthy(health_url, process, log, timeout)
        yield process
    finally:
        if graceful:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        else:
            process.kill()
        process.wait(timeout=10)


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    name = Path(process.args[0] if isinstance(process.args, list) else str(process.args)).name
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)  # polling a process we do not control, within the deadline
    tail = log.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"{name} was not healthy within {timeout:g} s: {tail}")
