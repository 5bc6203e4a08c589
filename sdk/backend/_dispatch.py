"""How the backend plane runs OpenRath's payloads on Rath's sandboxes.

See docs/sandboxes.md, "Where the code is".
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from rath.backend import results as r
from rath.backend import tool_types as t
from rath.backend.sandboxes import SandboxBackend, ToolFailure
from rath.backend.sandboxes._hostdir import HostDirSandbox, code_error

# Rath's finer failure kinds of a file operation, and the OSError each stands for; OpenRath
# reports them as "os_error" (a missing file read stays "file_not_found").
_OS_ERRORS = {
    "file_not_found": "FileNotFoundError",
    "not_a_directory": "NotADirectoryError",
    "is_a_directory": "IsADirectoryError",
}


T = TypeVar("T")

# Set inside the plane's loop for one call: its coroutine runs on the plane's own thread,
# where the caller's context (and so ``activity.in_activity()``) is not visible.
_CALLED_IN_ACTIVITY: ContextVar[bool] = ContextVar("rath_plane_called_in_activity", default=False)


def as_called(coro: Coroutine[Any, Any, T]) -> Coroutine[Any, Any, T]:
    """``coro``, remembering whether its (synchronous) caller runs inside a Temporal activity."""
    called_in_activity = _in_activity()

    async def call() -> T:
        _CALLED_IN_ACTIVITY.set(called_in_activity)
        return await coro

    return call()


def _in_activity() -> bool:
    """Whether the caller runs in a Temporal activity.

    Never while the SDK is not even loaded, so the plane imports without it.
    """
    sdk = sys.modules.get("temporalio.activity")
    return sdk is not None and bool(sdk.in_activity())


@dataclass
class Target:
    """An open sandbox as the plane dispatches to it, and the host directory it works on."""

    box: SandboxBackend
    shown_root: str  # where listed paths live, as OpenRath's FileEntry.path shows them
    timeout: float | None  # the spec's command timeout; None: none
    root: Path
    owned: bool  # whether closing it deletes ``root`` (the plane made it)


async def dispatch(target: Target, call: t.BackendTool) -> r.ToolResult | bool:
    """Run ``call``; expected failures come back as ``ToolExecutionFailure``."""
    if isinstance(call, t.BackendToolFilesExists):
        return await _exists(target.box, call.path)
    try:
        box = target.box
        host = box if isinstance(box, HostDirSandbox) and not _CALLED_IN_ACTIVITY.get() else None
        return await _run(target, call, host)
    except ToolFailure as failure:
        return _openrath_failure(failure, call)


async def _exists(box: SandboxBackend, path: str) -> bool:
    """Always a plain ``bool``: a path the sandbox refuses (outside it) does not exist in it."""
    try:
        return await box.path_exists(path)
    except ToolFailure:
        return False


async def _run(target: Target, call: t.BackendTool, host: HostDirSandbox | None) -> r.ToolResult:
    """Run ``call``: on ``host``'s plane entry points if given, else on the sandbox's primitives.

    ``host``'s entry points are uncapped, with OpenRath's semantics; the ordinary primitives are
    capped and checked as for agents' tools.
    """
    box = target.box
    if isinstance(call, t.BackendToolCommandRun):
        if host is not None:
            return await _program(target, host, call)
        line = call.cmd if isinstance(call.cmd, str) else shlex.join(call.cmd)
        if call.cwd:
            line = f"cd {shlex.quote(call.cwd)} && {line}"
        done = await box.run_command(line, timeout=call.timeout, env=call.env, stdin=call.stdin)
        return r.CommandResult(
            done.exit_code, _raw(done.stdout), _raw(done.stderr), done.elapsed_ms
        )
    if isinstance(call, t.BackendToolFilesRead):
        codec = call.encoding or "utf-8"
        if host is not None:
            content = await host.read_file(call.path, encoding=codec, whole=True)
        else:
            content = await box.read_file(call.path, encoding=codec)
        return r.FileContent(content.data if call.encoding else _raw(content.data))
    if isinstance(call, t.BackendToolFilesWrite):
        return await box.write_file(call.path, call.data)
    if isinstance(call, t.BackendToolFilesList):
        if host is not None:
            return _entries(target, await host.list_files(call.path, whole=True))
        return _entries(target, await box.list_files(call.path))
    if isinstance(call, t.BackendToolCodeRun):
        if host is not None:
            timeout = target.timeout if call.timeout is None else call.timeout
            ran = await host.run_python(call.code, language=call.language, timeout=timeout)
            return r.CodeResult(None, ran.raw_stdout, ran.raw_stderr, code_error(ran))
        primitive = await box.run_code(call.code, language=call.language, timeout=call.timeout)
        return r.CodeResult(None, _raw(primitive.stdout), _raw(primitive.stderr), primitive.error)
    return r.ToolExecutionFailure("unsupported_tool", f"no such payload: {type(call).__name__}")


async def _program(
    target: Target, box: HostDirSandbox, call: t.BackendToolCommandRun
) -> r.ToolResult:
    """``call`` as a program on ``box``: a string under ``/bin/sh -c``, a sequence as an argv."""
    if isinstance(call.cmd, str):
        argv = ["/bin/sh", "-c", call.cmd]
    else:  # subprocess, which OpenRath used, also takes path objects
        argv = [os.fspath(a) if isinstance(a, os.PathLike) else a for a in call.cmd]
    if not argv:  # OpenRath's subprocess call fails with an IndexError here
        return r.tool_failure_from("unexpected", ValueError("the command's argv is empty"))
    done = await box.run_program(
        argv,
        cwd=call.cwd,
        env=call.env,
        stdin=call.stdin,
        timeout=target.timeout if call.timeout is None else call.timeout,
    )
    return r.CommandResult(done.exit_code, done.raw_stdout, done.raw_stderr, done.elapsed_ms)


def _raw(data: bytes | str) -> bytes:
    return data if isinstance(data, bytes) else data.encode()


def _entries(target: Target, listing: r.FileEntries) -> r.FileEntries:
    return r.FileEntries(
        tuple(
            r.FileEntry(e.name, f"{target.shown_root}/{e.path}", e.is_dir)
            for e in sorted(listing.entries, key=lambda e: e.name)
        )
    )


def _openrath_failure(failure: ToolFailure, call: t.BackendTool) -> r.ToolExecutionFailure:
    """``failure`` with OpenRath's kind for ``call`` (its file operations' OSErrors)."""
    error = _OS_ERRORS.get(failure.kind)
    keep = isinstance(call, t.BackendToolFilesRead) and failure.kind == "file_not_found"
    if error is None or keep:
        return r.ToolExecutionFailure(failure.kind, failure.message, failure.detail)
    return r.ToolExecutionFailure("os_error", failure.message, failure.detail or error)
