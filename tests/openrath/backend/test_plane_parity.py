"""rath.backend behaves like OpenRath's plane: commands, files and code on ``local`` (and the
same entry points on ``bwrap``), custom backends, errors, the deprecated loop shim."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

import rath.backend as backend
from rath.backend import (
    Backend,
    BackendNotFound,
    BackendSandbox,
    BackendSandboxSpec,
    BackendTool,
    BackendToolCodeRun,
    BackendToolCommandRun,
    BackendToolFilesExists,
    BackendToolFilesList,
    BackendToolFilesRead,
    BackendToolFilesWrite,
    Capabilities,
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    IsolationLevel,
    ToolExecutionFailure,
    ToolResult,
    UnsupportedBackendTool,
)
from rath.backend.dedicated_loop import DedicatedEventLoopThread, shared_opensandbox_loop

BIG = 200_000  # well past the agents' 64 KiB output and read caps


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[BackendSandbox]:
    spec = BackendSandboxSpec(working_dir=str(tmp_path / "ws"))
    with backend.get("local").open(spec) as opened:
        yield opened


def run(sandbox: BackendSandbox, cmd: str | list[str], **kwargs: object) -> CommandResult:
    result = sandbox.dispatch(BackendToolCommandRun(cmd, **kwargs))  # type: ignore[arg-type]
    assert isinstance(result, CommandResult), result
    return result


def failure(sandbox: BackendSandbox, call: BackendTool) -> ToolExecutionFailure:
    result = sandbox.dispatch(call)
    assert isinstance(result, ToolExecutionFailure), result
    return result


# Commands


def test_an_argv_runs_without_a_shell(sandbox: BackendSandbox) -> None:
    assert run(sandbox, ["echo", "$HOME", "a b"]).stdout == b"$HOME a b\n"


def test_an_argv_naming_a_missing_program_is_an_os_error(sandbox: BackendSandbox) -> None:
    missing = failure(sandbox, BackendToolCommandRun(["/nonexistent/rath_no_such_exe"]))
    assert missing.kind == "os_error"


def test_a_string_runs_under_sh(sandbox: BackendSandbox) -> None:
    assert run(sandbox, "echo $((6 * 7))").stdout == b"42\n"


def test_a_multiline_string_runs(sandbox: BackendSandbox) -> None:
    assert run(sandbox, "echo one\necho two").stdout == b"one\ntwo\n"


def test_an_empty_string_runs_and_succeeds(sandbox: BackendSandbox) -> None:
    done = run(sandbox, "")
    assert (done.exit_code, done.stdout, done.stderr) == (0, b"", b"")


def test_an_empty_argv_is_an_unexpected_failure(sandbox: BackendSandbox) -> None:
    assert failure(sandbox, BackendToolCommandRun([])).kind == "unexpected"


def test_an_explicit_timeout_is_honoured(sandbox: BackendSandbox) -> None:
    assert run(sandbox, "sleep 0.2; echo done", timeout=120).stdout == b"done\n"
    started = time.monotonic()
    assert failure(sandbox, BackendToolCommandRun("sleep 10", timeout=0.3)).kind == "timeout"
    assert time.monotonic() - started < 5


def test_a_zero_timeout_expires_at_once(sandbox: BackendSandbox, tmp_path: Path) -> None:
    ran = BackendToolCommandRun("touch ran", timeout=0)
    assert failure(sandbox, ran).kind == "timeout"
    assert not (tmp_path / "ws" / "ran").exists()


def test_the_whole_output_comes_back(sandbox: BackendSandbox) -> None:
    code = f"import sys; sys.stdout.write('x' * {BIG}); sys.stderr.write('y' * {BIG})"
    done = run(sandbox, ["python3", "-c", code])
    assert done.stdout == b"x" * BIG and done.stderr == b"y" * BIG


def test_binary_stdin_and_stdout_pass_through_unchanged(sandbox: BackendSandbox) -> None:
    data = bytes(range(256)) * 3
    assert run(sandbox, ["cat"], stdin=data).stdout == data


def test_env_is_merged_over_a_scrubbed_environment(
    sandbox: BackendSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_TEST_SECRET", "hunter2")
    done = run(sandbox, 'echo "$MINE:$RATH_TEST_SECRET"', env={"MINE": "mine"})
    assert done.stdout == b"mine:\n"


def test_cwd_applies_to_an_argv(sandbox: BackendSandbox) -> None:
    sandbox.dispatch(BackendToolFilesWrite("sub/x.txt", "x"))
    assert run(sandbox, ["ls"], cwd="sub").stdout == b"x.txt\n"


def test_a_missing_cwd_is_an_os_error(sandbox: BackendSandbox) -> None:
    assert failure(sandbox, BackendToolCommandRun(["ls"], cwd="nowhere")).kind == "os_error"


@pytest.mark.skipif(not backend.is_available("bwrap"), reason="bwrap cannot run here")
def test_bwrap_runs_an_argv_in_cwd_with_raw_output(tmp_path: Path) -> None:
    spec = BackendSandboxSpec(working_dir=str(tmp_path))
    with backend.get("bwrap").open(spec) as sandbox:
        sandbox.dispatch(BackendToolFilesWrite("sub/x.txt", "x"))
        assert run(sandbox, ["pwd"], cwd="sub").stdout == b"/workspace/sub\n"
        data = bytes(range(256)) * 400
        assert run(sandbox, "cat\necho", stdin=data).stdout == data + b"\n"


# Files


def test_a_file_is_read_whole(sandbox: BackendSandbox) -> None:
    sandbox.dispatch(BackendToolFilesWrite("big.txt", "z" * BIG))
    assert sandbox.dispatch(BackendToolFilesRead("big.txt")) == FileContent("z" * BIG)
    raw = sandbox.dispatch(BackendToolFilesRead("big.txt", encoding=None))
    assert raw == FileContent(b"z" * BIG)


def test_reading_a_directory_is_an_os_error(sandbox: BackendSandbox) -> None:
    sandbox.dispatch(BackendToolFilesWrite("d/f.txt", "x"))
    assert failure(sandbox, BackendToolFilesRead("d")).kind == "os_error"


def test_writing_over_a_directory_is_an_os_error(sandbox: BackendSandbox) -> None:
    sandbox.dispatch(BackendToolFilesWrite("d/f.txt", "x"))
    assert failure(sandbox, BackendToolFilesWrite("d", "x")).kind == "os_error"


def test_listing_a_missing_directory_is_an_os_error(sandbox: BackendSandbox) -> None:
    assert failure(sandbox, BackendToolFilesList("nowhere")).kind == "os_error"


def test_a_directory_is_listed_whole(sandbox: BackendSandbox) -> None:
    run(sandbox, "mkdir many && cd many && touch $(seq -w 1 700)")
    listing = sandbox.dispatch(BackendToolFilesList("many"))
    assert isinstance(listing, FileEntries) and len(listing.entries) == 700


def test_exists_outside_the_sandbox_is_a_plain_false(sandbox: BackendSandbox) -> None:
    assert sandbox.dispatch(BackendToolFilesExists("/etc/passwd")) is False
    assert sandbox.dispatch(BackendToolFilesExists("../..")) is False


# Code


def test_code_output_comes_back_whole_and_raw(sandbox: BackendSandbox) -> None:
    code = f"import sys; sys.stdout.buffer.write(b'\\xff' * {BIG})"
    ran = sandbox.dispatch(BackendToolCodeRun(code))
    assert isinstance(ran, CodeResult) and ran.stdout == b"\xff" * BIG and ran.error is None


# Custom backends and errors


class _Bare(Backend):
    """OpenRath-style backend: no ``super().__init__()``, ``_aclose`` checks ``closed``."""

    def __init__(self) -> None:
        self.cleaned: list[str] = []

    @classmethod
    def capabilities(cls) -> Capabilities:
        return Capabilities(IsolationLevel.PROCESS, True, False, False)

    async def _aopen(self, spec: BackendSandboxSpec | None = None) -> BackendSandbox:
        return BackendSandbox(backend=self, handle="bare", spec=spec)

    async def _aclose(self, sandbox: BackendSandbox) -> None:
        if sandbox.closed:
            return
        self.cleaned.append(sandbox.handle)
        sandbox.closed = True

    async def _adispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        return CommandResult(0, b"ok", b"", 0.0)


def test_a_backend_that_skips_super_init_works() -> None:
    bare = _Bare()
    sandbox = bare.open()
    assert bare.sandbox_count() == 1
    assert sandbox.dispatch(BackendToolCommandRun("x")) == CommandResult(0, b"ok", b"", 0.0)
    bare.close(sandbox)
    assert bare.sandbox_count() == 0 and sandbox.closed


def test_close_runs_the_hook_before_the_handle_is_closed() -> None:
    bare = _Bare()
    with bare.open():
        pass
    assert bare.cleaned == ["bare"]


def test_unsupported_backend_tool_takes_the_payload_class() -> None:
    error = UnsupportedBackendTool(BackendToolCommandRun, "weird")
    assert error.call_type is BackendToolCommandRun
    assert "BackendToolCommandRun" in str(error) and "weird" in str(error)


def test_backend_not_found_lists_the_available_names() -> None:
    with pytest.raises(BackendNotFound) as info:
        backend.get("nope")
    assert info.value.available == backend.list_names()
    assert BackendNotFound("x", ("local", "other")).available == ["local", "other"]


# The deprecated loop shim


async def _answer() -> int:
    return 42


def test_dedicated_event_loop_thread_warns_and_runs_on_the_shared_loop() -> None:
    with pytest.warns(DeprecationWarning, match="DedicatedEventLoopThread is deprecated"):
        loop = DedicatedEventLoopThread()
    assert loop.run(_answer()) == 42


def test_shared_opensandbox_loop_warns_and_returns_the_shim() -> None:
    with pytest.warns(DeprecationWarning) as caught:
        loop = shared_opensandbox_loop()
    assert any("shared_opensandbox_loop" in str(w.message) for w in caught)
    assert isinstance(loop, DedicatedEventLoopThread) and loop.run(_answer()) == 42


def test_openrath_module_paths_name_the_same_objects() -> None:
    from rath.backend.abc import BackendSandboxSpec as Spec
    from rath.backend.errors import BackendSandboxClosed
    from rath.backend.opensandbox import OpenSandboxBackend
    from rath.backend.registry import list_names
    from rath.backend.stream import Future
    from rath.backend.tool_types import BackendToolFilesWrite

    assert Spec is BackendSandboxSpec and Future is backend.Future
    assert BackendSandboxClosed is backend.BackendSandboxClosed
    assert BackendToolFilesWrite is backend.BackendToolFilesWrite
    assert list_names is backend.list_names and OpenSandboxBackend is backend.OpenSandboxBackend


def test_inside_an_activity_the_plane_keeps_the_agents_tool_limits(
    sandbox: BackendSandbox,
) -> None:
    # A user tool runs in an activity: one call must not fill the worker's memory.
    command = f"head -c {BIG} /dev/zero | tr '\\0' x"
    assert len(run(sandbox, command).stdout) == BIG  # plain Python: all of it

    def in_activity() -> CommandResult:
        return run(sandbox, command)

    capped = ActivityEnvironment().run(in_activity)
    assert len(capped.stdout) < BIG and b"truncated" in capped.stdout
