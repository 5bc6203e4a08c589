"""Worker subprocesses for crash tests: real ``python -m rath.worker`` processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType

READY_TIMEOUT = 30.0
TESTS_DIR = str(Path(__file__).resolve().parent)


def with_tests_importable(env: dict[str, str]) -> dict[str, str]:
    """``env`` with ``tests/`` on ``PYTHONPATH`` (for ``--tools tool_app:add`` and the like)."""
    return env | {"PYTHONPATH": os.pathsep.join([TESTS_DIR, env.get("PYTHONPATH", "")])}


class WorkerProcess:
    """A ``python -m rath.worker`` subprocess, ready once it printed its banner."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.lines: list[str] = []  # every line read so far (stderr is merged into stdout)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rath.worker", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            self.banner = self.wait_for_line("rath worker:")  # after any warnings
        except BaseException:
            self.proc.kill()  # never leave a worker behind to take a later test's tasks
            self.proc.wait()
            raise

    def wait_for_line(self, prefix: str, timeout: float = READY_TIMEOUT) -> str:
        """Read the worker's output until a line starts with ``prefix`` (bounded)."""
        found: list[str] = []

        def read() -> None:
            for line in self.proc.stdout:  # type: ignore[union-attr]
                self.lines.append(line)
                if line.startswith(prefix):
                    found.append(line)
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        assert found, f"no line starting with {prefix!r} within {timeout}s"
        return found[0]

    def __enter__(self) -> WorkerProcess:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=READY_TIMEOUT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=READY_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()
