"""rath.backend: OpenRath's backend plane over Rath's sandboxes (registry, handles and their
reference counts, every payload, streams)."""

from __future__ import annotations

import pickle
from datetime import timedelta
from pathlib import Path

import pytest

import rath.backend as backend
from rath.backend import (
    BackendNotFound,
    BackendSandboxClosed,
    BackendSandboxSpec,
    BackendToolCodeRun,
    BackendToolCommandRun,
    BackendToolFilesExists,
    BackendToolFilesList,
    BackendToolFilesRead,
    BackendToolFilesWrite,
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileWriteResult,
    IsolationLevel,
    LocalBackend,
    ToolExecutionFailure,
    UnsupportedBackendTool,
)


def test_the_registry() -> None:
    assert {"local", "bwrap", "docker"} <= set(backend.list_names())
    local = backend.get("local")
    assert isinstance(local, LocalBackend) and backend.get("local") is local
    assert backend.get_class("local") is LocalBackend and LocalBackend.name == "local"
    assert backend.is_available("local") and not backend.is_available("nope")
    assert backend.preferred(["nope", "local"]) is local
    with pytest.raises(BackendNotFound, match="no sandbox backend 'nope'") as info:
        backend.get("nope")
    assert isinstance(info.value, RuntimeError)
    copy = pickle.loads(pickle.dumps(info.value))
    assert str(copy) == str(info.value) and copy.available == info.value.available
    with pytest.raises(ValueError, match="already registered"):
        backend.register("local")(LocalBackend)
    capabilities = LocalBackend.capabilities()
    assert capabilities.isolation is IsolationLevel.PROCESS and capabilities.supports_command
    backend.set_default("local")
    assert backend.current() is local


def test_a_sandbox_is_shared_by_reference_count() -> None:
    local = backend.get("local")
    before = local.sandbox_count()
    sandbox = local.open()
    workdir = Path(sandbox.handle)
    assert workdir.is_dir() and workdir.name.startswith("rath-local-")
    assert sandbox.refcount == 0 and local.sandbox_count() == before + 1
    with sandbox:
        sandbox.acquire()
        assert sandbox.refcount == 2
        sandbox.release()
    assert sandbox.closed and not workdir.exists()  # made for it, deleted with it
    assert local.sandbox_count() == before
    sandbox.release()  # no-op once closed
    with pytest.raises(BackendSandboxClosed):
        sandbox.acquire()
    with pytest.raises(BackendSandboxClosed):
        sandbox.dispatch(BackendToolFilesExists("x"))
    failure = local.dispatch(sandbox, BackendToolFilesExists("x"))
    assert isinstance(failure, ToolExecutionFailure) and failure.kind == "sandbox_closed"
    local.close(sandbox)  # idempotent


def test_every_payload_in_a_given_working_dir(tmp_path: Path) -> None:
    sandbox = backend.get("local").open(BackendSandboxSpec(working_dir=str(tmp_path / "ws")))
    with sandbox:
        wrote = sandbox.dispatch(BackendToolFilesWrite("notes/a.txt", "héllo"))
        assert wrote == FileWriteResult(len("héllo".encode()))
        assert sandbox.dispatch(BackendToolFilesRead("notes/a.txt")) == FileContent("héllo")
        raw = sandbox.dispatch(BackendToolFilesRead("notes/a.txt", encoding=None))
        assert raw == FileContent("héllo".encode())
        sandbox.dispatch(BackendToolFilesWrite("notes/b.txt", b"x"))
        listing = sandbox.dispatch(BackendToolFilesList("notes"))
        assert isinstance(listing, FileEntries)
        assert [(e.name, e.is_dir) for e in listing.entries] == [("a.txt", False), ("b.txt", False)]
        assert listing.entries[0].path == str((tmp_path / "ws" / "notes" / "a.txt").resolve())
        assert sandbox.dispatch(BackendToolFilesExists("notes/a.txt")) is True
        assert sandbox.dispatch(BackendToolFilesExists("missing")) is False

        ran = sandbox.dispatch(BackendToolCommandRun("echo $GREETING; pwd", env={"GREETING": "hi"}))
        assert isinstance(ran, CommandResult) and ran.exit_code == 0
        assert ran.stdout.decode().splitlines()[0] == "hi"
        inside = sandbox.dispatch(BackendToolCommandRun(["ls"], cwd="notes"))
        assert isinstance(inside, CommandResult) and inside.stdout.decode().split() == [
            "a.txt",
            "b.txt",
        ]
        piped = sandbox.dispatch(BackendToolCommandRun("cat; exit 7", stdin=b"fed"))
        assert isinstance(piped, CommandResult) and piped.stdout == b"fed"
        assert piped.exit_code == 7
        slow = sandbox.dispatch(BackendToolCommandRun("sleep 5", timeout=0.5))
        assert isinstance(slow, ToolExecutionFailure) and slow.kind == "timeout"

        code = sandbox.dispatch(BackendToolCodeRun("print(6 * 7)"))
        assert isinstance(code, CodeResult) and code.stdout.decode().strip() == "42"
        assert code.error is None and code.text is None
        broken = sandbox.dispatch(BackendToolCodeRun("raise SystemExit('no')"))
        assert isinstance(broken, CodeResult) and broken.error
        missing = sandbox.dispatch(BackendToolFilesRead("nope.txt"))
        assert isinstance(missing, ToolExecutionFailure) and missing.kind == "file_not_found"
        outside = sandbox.dispatch(BackendToolFilesRead("../escape.txt"))
        assert isinstance(outside, ToolExecutionFailure)
        assert outside.kind == "path_outside_workspace"
    assert (tmp_path / "ws" / "notes" / "a.txt").exists()  # a given directory is kept


def test_a_payload_the_backend_does_not_run_is_refused(tmp_path: Path) -> None:
    class Limited(LocalBackend):
        @classmethod
        def supported_calls(cls) -> frozenset[type[backend.BackendTool]]:
            return frozenset({BackendToolFilesExists})

    limited = Limited()
    sandbox = limited.open(BackendSandboxSpec(working_dir=str(tmp_path)))
    with sandbox, pytest.raises(UnsupportedBackendTool) as info:
        sandbox.dispatch(BackendToolCodeRun("1"))
    assert pickle.loads(pickle.dumps(info.value)).call_type == "BackendToolCodeRun"


def test_a_stream_runs_its_payloads_in_order(tmp_path: Path) -> None:
    sandbox = backend.get("local").open(BackendSandboxSpec(working_dir=str(tmp_path)))
    with sandbox, sandbox.stream() as stream, backend.Stream(sandbox) as other:
        start = stream.record_event()
        writes = [stream.submit(BackendToolFilesWrite("log.txt", str(i))) for i in range(5)]
        read = stream.submit(BackendToolFilesRead("log.txt"))
        end = stream.record_event()
        assert read.result() == FileContent("4")
        assert all(isinstance(w.result(), FileWriteResult) for w in writes)
        end.synchronize()
        assert start.query() and start.elapsed_time(end) >= 0
        other.wait_stream(stream).result()
        never = backend.Event()
        timed_out = other.wait_event(never, timeout=0.05)
        with pytest.raises(TimeoutError):
            timed_out.result()
        stream.synchronize()
        assert stream.query()
    with pytest.raises(RuntimeError, match="stream is closed"):
        stream.submit(BackendToolFilesExists("x"))


def test_timeouts_in_the_spec_become_the_command_default(tmp_path: Path) -> None:
    spec = BackendSandboxSpec(working_dir=str(tmp_path), timeout=timedelta(seconds=0.5))
    with backend.get("local").open(spec) as sandbox:
        slow = sandbox.dispatch(BackendToolCommandRun("sleep 5"))
    assert isinstance(slow, ToolExecutionFailure) and slow.kind == "timeout"
