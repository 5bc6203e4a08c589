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
    """An open sandbox as the plane dispatches to it."""

    box: SandboxBackend
    shown_root: str  # where listed paths live, as OpenRath's FileEntry.path shows them
    timeout: float | None  # the spec's command timeout; None: none


async def dispatch(target: Target, call: t.BackendTool) -> r.ToolResult | bool:
    """Run ``call``; expected failures come back as ``ToolExecutionFailure``."""
    if isinstance(call, t.BackendToolFilesExists):
        return await _exists(target.box, call.path)
    try:
        if isinstance(target.box, HostDirSandbox) and not _CALLED_IN_ACTIVITY.get():
            return await _on_host_dir(target, target.box, call)
        return await _on_primitives(target, call)
    except ToolFailure as failure:
        return _openrath_failure(failure, call)


async def _exists(box: SandboxBackend, path: str) -> bool:
    """Always a plain ``bool``: a path the sandbox refuses (outside it) does not exist in it."""
    try:
        return await box.path_exists(path)
    except ToolFailure:
        return False


async def _on_host_dir(target: Target, box: HostDirSandbox, call: t.BackendTool) -> r.ToolResult:
    if isinstance(call, t.BackendToolCommandRun):
        return await _command(target, box, call)
    if isinstance(call, t.BackendToolCodeRun):
        timeout = target.timeout if call.timeout is None else call.timeout
        ran = await box.run_python(call.code, language=call.language, timeout=timeout)
        return r.CodeResult(None, ran.raw_stdout, ran.raw_stderr, code_error(ran))
    if isinstance(call, t.BackendToolFilesRead):
        content = await box.read_file(call.path, encoding=call.encoding or "utf-8", whole=True)
        return r.FileContent(content.data if call.encoding else _raw(content.data))
    if isinstance(call, t.BackendToolFilesList):
        return _entries(target, await box.list_files(call.path, whole=True))
    return await _on_primitives(target, call)


async def _command(
    target: Target, box: HostDirSandbox, call: t.BackendToolCommandRun
) -> r.ToolResult:
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


async def _on_primitives(target: Target, call: t.BackendTool) -> r.ToolResult:
    """The sandbox's ordinary primitives (capped and checked as for agents' tools)."""
    box = target.box
    if isinstance(call, t.BackendToolCommandRun):
        line = call.cmd if isinstance(call.cmd, str) else shlex.join(call.cmd)
        if call.cwd:
            line = f"cd {shlex.quote(call.cwd)} && {line}"
        done = await box.run_command(line, timeout=call.timeout, env=call.env, stdin=call.stdin)
        return r.CommandResult(
            done.exit_code, _raw(done.stdout), _raw(done.stderr), done.elapsed_ms
        )
    if isinstance(call, t.BackendToolFilesRead):
        content = await box.read_file(call.path, encoding=call.encoding or "utf-8")
        return r.FileContent(content.data if call.encoding else _raw(content.data))
    if isinstance(call, t.BackendToolFilesWrite):
        return await box.write_file(call.path, call.data)
    if isinstance(call, t.BackendToolFilesList):
        return _entries(target, await box.list_files(call.path))
    if isinstance(call, t.BackendToolCodeRun):
        ran = await box.run_code(call.code, language=call.language, timeout=call.timeout)
        return r.CodeResult(None, _raw(ran.stdout), _raw(ran.stderr), ran.error)
    return r.ToolExecutionFailure("unsupported_tool", f"no such payload: {type(call).__name__}")


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
