"""Run a subprocess with a deadline, capped output and a scrubbed environment (POSIX only)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rath.backend.sandboxes._base import ToolFailure

# After the main process exits, how long background children may keep its output open.
BACKGROUND_GRACE = 1.0
# After killing a process group, how long to wait for its exit and end-of-file on the pipes.
KILL_GRACE = 2.0
BACKGROUND_NOTE = (
    "\n[rath] background processes still holding the command's output were stopped; "
    "redirect their output to a file (> log 2>&1) to keep them running"
)


@dataclass(frozen=True, slots=True)
class Execution:
    """One program run for a sandbox: what a backend's ``_execute`` hook receives.

    Attributes:
        root: The real host path of the workspace.
        argv: Program and arguments, as the sandbox sees them.
        env: The complete, scrubbed environment.
        timeout: Seconds before the program and everything it started are killed; ``None``: no
            limit (the backend plane's commands, as in OpenRath).
        cap: Bytes kept per output stream; ``None``: all of it (the backend plane's).
        stdin: Bytes fed to stdin; ``None`` gives an empty stdin.
        cwd: The program's working directory, relative to the workspace (already confined).
    """

    root: str
    argv: tuple[str, ...]
    env: Mapping[str, str]
    timeout: float | None
    cap: int | None
    stdin: bytes | None
    cwd: str = "."


@dataclass(frozen=True, slots=True)
class ProcessOutput:
    """What a finished process produced.

    ``stdout`` and ``stderr`` are decoded (with the truncation marker when cut); ``raw_stdout``
    and ``raw_stderr`` are the bytes kept, exactly as the program wrote them.
    """

    exit_code: int
    stdout: str
    stderr: str
    elapsed_ms: float
    truncated: bool
    raw_stdout: bytes = b""
    raw_stderr: bytes = b""


class CappedBuffer:
    """Keeps the first ``cap`` bytes of a stream and counts (but drops) the rest.

    A ``cap`` of ``None`` keeps everything.
    """

    def __init__(self, cap: int | None) -> None:
        self._cap = cap
        self._parts: list[bytes] = []
        self._kept = 0
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        if self._cap is None:
            self._parts.append(chunk)
            return
        room = self._cap - self._kept
        if room > 0:
            self._parts.append(chunk[:room])
            self._kept += min(room, len(chunk))
        self.dropped += max(0, len(chunk) - max(room, 0))

    def raw(self) -> bytes:
        """The bytes kept, unchanged (no truncation marker)."""
        return b"".join(self._parts)

    def text(self) -> str:
        """The bytes kept, decoded (errors replaced), with a truncation marker when cut."""
        text = self.raw().decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n...(truncated {self.dropped} bytes)"
        return text


def scrubbed_env(
    workspace: str,
    extra: Mapping[str, str],
    idempotency_key: str | None,
    *,
    tmpdir: str | None = None,
    path: str | None = None,
) -> dict[str, str]:
    """Build a minimal environment: the worker's own variables (API keys) never leak in."""
    env = {"PATH": path or os.environ.get("PATH") or os.defpath, "HOME": workspace}
    for name in ("LANG", "LC_ALL"):
        if name in os.environ:
            env[name] = os.environ[name]
    env["TMPDIR"] = tmpdir or tempfile.gettempdir()
    if idempotency_key is not None:
        env["RATH_IDEMPOTENCY_KEY"] = idempotency_key
    env.update(extra)
    for key, value in env.items():
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ToolFailure("invalid_argument", f"invalid environment variable {key!r}")
    return env


MAX_COMMAND_CHARS = 8192
"""The longest command line a sandbox runs; longer work belongs in a script file."""


def check_command(cmd: str, *, limit: int = MAX_COMMAND_CHARS) -> None:
    """Refuse what no backend runs: a non-string, empty, multiline, NUL or over-long command."""
    if not isinstance(cmd, str):
        raise ToolFailure("invalid_argument", "the command must be a string")
    if not cmd.strip():
        raise ToolFailure("invalid_argument", "the command is empty")
    if "\n" in cmd or "\r" in cmd:
        raise ToolFailure(
            "invalid_argument",
            "multiline commands are rejected; chain commands with && or ; on one line, "
            "or write a script file and run it",
        )
    if "\0" in cmd:
        raise ToolFailure("invalid_argument", "the command contains a NUL character")
    if len(cmd) > limit:
        raise ToolFailure(
            "invalid_argument",
            f"the command is too long ({len(cmd)} characters, limit {limit}); "
            "write a script file and run it",
        )


def check_timeout(timeout: float | None, default: float) -> float:
    """The effective timeout: ``timeout`` capped at ``default`` (the sandbox's own limit).

    A caller (the model) may ask for less time than the sandbox allows, never more.
    """
    value = default if timeout is None else timeout
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolFailure("invalid_argument", "timeout must be a number of seconds")
    if not math.isfinite(value) or value <= 0:
        raise ToolFailure("invalid_argument", f"timeout must be positive, got {value!r}")
    return float(min(value, default))


async def run_process(run: Execution, *, wrapper: Sequence[str] = ()) -> ProcessOutput:
    """Run ``run.argv`` on the host, in its own process group, and collect capped output.

    Output is consumed as it arrives and only the first ``run.cap`` bytes of each stream are
    kept (all of them when ``run.cap`` is ``None``). On timeout (or cancellation) the whole
    process group is killed, so children that keep the pipes open cannot stall the call.
    Background children still holding the output one second after the main process exits are
    killed too (a note is appended to stderr).

    Raises:
        ToolFailure: ``timeout`` or ``os_error`` (the program could not be started).
    """
    argv = [*wrapper, *run.argv]
    loop = asyncio.get_running_loop()
    collector = _Collector(run.cap, loop)
    started = time.monotonic()
    try:
        transport, _ = await loop.subprocess_exec(
            lambda: collector,
            *argv,
            stdin=subprocess.DEVNULL if run.stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=os.path.join(run.root, run.cwd),
            env=dict(run.env),
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolFailure(
            "os_error", f"could not start {argv[0]!r}: {exc.strerror}", type(exc).__name__
        ) from exc
    pgid = transport.get_pid()
    background_killed = False
    try:
        if run.stdin is not None:
            stdin = transport.get_pipe_transport(0)
            assert isinstance(stdin, asyncio.WriteTransport)
            stdin.write(run.stdin)
            stdin.close()  # flushes, then closes: the child sees end-of-file
        done, _ = await asyncio.wait({collector.exited}, timeout=run.timeout)
        if not done:
            _kill_group(pgid)
            await asyncio.wait({collector.exited, collector.pipes_closed}, timeout=KILL_GRACE)
            raise timeout_failure(run.timeout, "the process group was killed")
        done, _ = await asyncio.wait({collector.pipes_closed}, timeout=BACKGROUND_GRACE)
        if not done:
            background_killed = True
            _kill_group(pgid)
            await asyncio.wait({collector.pipes_closed}, timeout=KILL_GRACE)
    finally:
        if transport.get_returncode() is None:
            _kill_group(pgid)
        transport.close()
    exit_code = transport.get_returncode()
    return output(
        -signal.SIGKILL if exit_code is None else exit_code,
        collector.stdout,
        collector.stderr,
        started,
        BACKGROUND_NOTE if background_killed else "",
    )


def output(
    exit_code: int, stdout: CappedBuffer, stderr: CappedBuffer, started: float, note: str = ""
) -> ProcessOutput:
    """The :class:`ProcessOutput` of a run that started at ``started`` (``time.monotonic``).

    ``note`` (about background processes stopped) ends stderr, decoded and raw alike.
    """
    return ProcessOutput(
        exit_code=exit_code,
        stdout=stdout.text(),
        stderr=stderr.text() + note,
        elapsed_ms=(time.monotonic() - started) * 1000,
        truncated=bool(stdout.dropped or stderr.dropped),
        raw_stdout=stdout.raw(),
        raw_stderr=stderr.raw() + note.encode(),
    )


def timeout_failure(seconds: float | None, what: str) -> ToolFailure:
    """The ``timeout`` failure of a run killed after ``seconds``; ``what`` says what was killed."""
    return ToolFailure("timeout", f"timed out after {seconds or 0:g} s; {what}")


class _Collector(asyncio.SubprocessProtocol):
    """Receives a child's output into capped buffers and reports exit and pipe closure."""

    def __init__(self, cap: int | None, loop: asyncio.AbstractEventLoop) -> None:
        self.stdout = CappedBuffer(cap)
        self.stderr = CappedBuffer(cap)
        self.exited: asyncio.Future[None] = loop.create_future()
        self.pipes_closed: asyncio.Future[None] = loop.create_future()
        self._open_pipes = {1, 2}

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        raw = data.encode() if isinstance(data, str) else data
        (self.stdout if fd == 1 else self.stderr).add(raw)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._open_pipes.discard(fd)
        if not self._open_pipes and not self.pipes_closed.done():
            self.pipes_closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
