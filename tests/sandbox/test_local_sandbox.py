"""What only LocalSandbox tests: construction, file primitive details, input validation.

Behaviour every backend shares (confinement, timeouts, caps, environment, code) is in
``test_backends.py``, which runs against ``local`` too.
"""

from __future__ import annotations

import os
import pickle
import select
import stat
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from rath.backend import BackendSandboxSpec, FileEntry
from rath.backend.sandboxes import (
    LocalSandbox,
    ToolFailure,
    available_backends,
    open_sandbox,
    register_backend,
)
from rath.errors import ConfigError, SandboxError


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def sandbox(workspace: Path) -> LocalSandbox:
    return LocalSandbox(
        BackendSandboxSpec(working_dir=str(workspace), timeout=timedelta(seconds=10))
    )


# --- construction and registry ------------------------------------------------------------


def test_missing_working_dir_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="working_dir"):
        LocalSandbox(BackendSandboxSpec())


def test_relative_working_dir_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="absolute"):
        LocalSandbox(BackendSandboxSpec(working_dir="relative/ws"))


async def test_workspace_is_created_when_missing(tmp_path: Path) -> None:
    target = tmp_path / "new" / "ws"
    async with LocalSandbox(BackendSandboxSpec(working_dir=str(target))) as sb:
        assert await sb.path_exists(".")
    assert target.is_dir()


def test_open_sandbox_local(workspace: Path) -> None:
    assert "local" in available_backends()
    assert isinstance(open_sandbox(BackendSandboxSpec(working_dir=str(workspace))), LocalSandbox)


def test_register_backend_conflict_and_idempotence() -> None:
    register_backend("local", LocalSandbox)  # same class again: fine

    class Other(LocalSandbox):
        pass

    with pytest.raises(ConfigError, match="already registered"):
        register_backend("local", Other)


def test_tool_failure_pickles() -> None:
    failure = pickle.loads(pickle.dumps(ToolFailure("timeout", "too slow", "TimeoutError")))
    assert (failure.kind, failure.message, failure.detail) == (
        "timeout",
        "too slow",
        "TimeoutError",
    )


async def test_closed_sandbox_refuses_work(sandbox: LocalSandbox) -> None:
    await sandbox.aclose()
    with pytest.raises(SandboxError, match="closed"):
        await sandbox.path_exists("x")


# --- confinement --------------------------------------------------------------------------


async def test_absolute_paths_inside_the_workspace_are_allowed(
    workspace: Path, sandbox: LocalSandbox
) -> None:
    target = str(workspace / "sub" / "a.txt")
    assert (await sandbox.write_file(target, "inside")).bytes_written == 6
    assert (await sandbox.read_file(target)).data == "inside"
    assert (await sandbox.read_file("sub/a.txt")).data == "inside"
    assert await sandbox.path_exists(str(workspace))


async def test_symlink_within_the_workspace_is_followed(
    workspace: Path, sandbox: LocalSandbox
) -> None:
    (workspace / "real").mkdir()
    (workspace / "real" / "f.txt").write_text("via link")
    (workspace / "alias").symlink_to(workspace / "real", target_is_directory=True)
    assert (await sandbox.read_file("alias/f.txt")).data == "via link"
    listing = await sandbox.list_files("alias")
    assert listing.entries == (FileEntry(name="f.txt", path="real/f.txt", is_dir=False),)


# --- files --------------------------------------------------------------------------------


async def test_write_is_atomic_and_idempotent(workspace: Path, sandbox: LocalSandbox) -> None:
    first = await sandbox.write_file("dir/out.txt", "same content\n")
    second = await sandbox.write_file("dir/out.txt", "same content\n")
    assert first == second
    assert os.listdir(workspace / "dir") == ["out.txt"]  # no temporary files left behind
    assert (workspace / "dir" / "out.txt").read_text() == "same content\n"
    assert stat.S_IMODE((workspace / "dir" / "out.txt").stat().st_mode) == 0o644


async def test_write_bytes_and_overwrite(workspace: Path, sandbox: LocalSandbox) -> None:
    await sandbox.write_file("f.bin", "a much longer first version")
    result = await sandbox.write_file("f.bin", b"\x00\xff")
    assert result.bytes_written == 2
    assert (workspace / "f.bin").read_bytes() == b"\x00\xff"


async def test_write_failures(workspace: Path, sandbox: LocalSandbox) -> None:
    (workspace / "d").mkdir()
    (workspace / "file").write_text("x")
    for path, kind in [("d", "is_a_directory"), (".", "is_a_directory")]:
        with pytest.raises(ToolFailure) as info:
            await sandbox.write_file(path, "x")
        assert info.value.kind == kind
    with pytest.raises(ToolFailure) as info:
        await sandbox.write_file("file/child.txt", "x")
    assert info.value.kind == "not_a_directory"


async def test_read_file_variants(workspace: Path) -> None:
    sb = LocalSandbox(BackendSandboxSpec(working_dir=str(workspace), max_output_bytes=8))
    (workspace / "text.txt").write_text("héllo")
    (workspace / "bin.dat").write_bytes(b"\xff\xfeok")
    (workspace / "long.txt").write_text("0123456789abcdef")
    assert (await sb.read_file("text.txt")).data == "héllo"
    raw = await sb.read_file("bin.dat", encoding=None)
    assert raw.data == "\ufffd\ufffdok"
    assert not raw.truncated
    assert (await sb.read_file("bin.dat")).data.endswith("ok")  # undecodable bytes replaced
    long = await sb.read_file("long.txt")
    assert (long.data, long.truncated) == ("01234567", True)


async def test_read_failures(tmp_path: Path, workspace: Path, sandbox: LocalSandbox) -> None:
    (workspace / "d").mkdir()
    os.mkfifo(workspace / "fifo")
    (workspace / "f.txt").write_text("x")
    cases = [
        ("missing.txt", {}, "file_not_found"),
        ("d", {}, "is_a_directory"),
        ("fifo", {}, "invalid_argument"),  # refused, not a hang
        ("f.txt", {"encoding": "no-such-codec"}, "invalid_argument"),
    ]
    for path, kwargs, kind in cases:
        with pytest.raises(ToolFailure) as info:
            await sandbox.read_file(path, **kwargs)
        assert info.value.kind == kind, path
        assert str(tmp_path) not in info.value.message
    with pytest.raises(ToolFailure) as info:
        await sandbox.read_file(str(workspace / "missing.txt"))
    assert info.value.kind == "file_not_found"
    assert str(tmp_path) not in info.value.message


async def test_list_files(workspace: Path, sandbox: LocalSandbox) -> None:
    (workspace / "b.txt").write_text("b")
    (workspace / "a_dir").mkdir()
    (workspace / "a_dir" / "inner.txt").write_text("i")
    listing = await sandbox.list_files(".")
    assert listing.entries == (
        FileEntry(name="a_dir", path="a_dir", is_dir=True),
        FileEntry(name="b.txt", path="b.txt", is_dir=False),
    )
    inner = await sandbox.list_files("a_dir")
    assert inner.entries == (FileEntry(name="inner.txt", path="a_dir/inner.txt", is_dir=False),)
    for entry in listing.entries + inner.entries:
        assert not os.path.isabs(entry.path)
    for path, kind in [("nope", "file_not_found"), ("b.txt", "not_a_directory")]:
        with pytest.raises(ToolFailure) as info:
            await sandbox.list_files(path)
        assert info.value.kind == kind


async def test_list_files_caps_at_500_entries(workspace: Path, sandbox: LocalSandbox) -> None:
    (workspace / "many").mkdir()
    for index in range(501):
        (workspace / "many" / f"f{index:04d}").touch()
    listing = await sandbox.list_files("many")
    assert len(listing.entries) == 500
    assert listing.truncated
    assert listing.entries[0].name == "f0000"


async def test_path_exists(workspace: Path, sandbox: LocalSandbox) -> None:
    (workspace / "here.txt").write_text("x")
    assert await sandbox.path_exists("here.txt")
    assert await sandbox.path_exists(".")
    assert not await sandbox.path_exists("missing.txt")


# --- commands -----------------------------------------------------------------------------


def _is_gone(pid: int, within: float = 5.0) -> bool:
    """Whether ``pid`` has exited (gone, or a zombie awaiting its reaper) within ``within`` s.

    A killed process closes its pipes before the kernel marks it exited, so the sandbox can
    return while the process is still exiting: wait on a pidfd, which becomes readable then.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([pidfd], [], [], within)[0])
    finally:
        os.close(pidfd)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
async def test_timeout_leaves_no_survivors(workspace: Path, sandbox: LocalSandbox) -> None:
    # A longer timeout than above so that, even on a loaded machine, the pid file is written
    # before the group is killed.
    cmd = "sh -c 'sleep 1000 & echo $! > child.pid; sleep 1000'"
    with pytest.raises(ToolFailure) as info:
        await sandbox.run_command(cmd, timeout=2)
    assert info.value.kind == "timeout"
    assert _is_gone(int((workspace / "child.pid").read_text()))


@pytest.mark.parametrize(
    "cmd", ["echo a\necho b", "echo a\recho b", "", "   ", "echo " + "x" * 8200]
)
async def test_invalid_commands_are_rejected(sandbox: LocalSandbox, cmd: str) -> None:
    with pytest.raises(ToolFailure) as info:
        await sandbox.run_command(cmd)
    assert info.value.kind == "invalid_argument"


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
async def test_invalid_timeouts_are_rejected(sandbox: LocalSandbox, timeout: float) -> None:
    with pytest.raises(ToolFailure) as info:
        await sandbox.run_command("true", timeout=timeout)
    assert info.value.kind == "invalid_argument"


# --- code ---------------------------------------------------------------------------------


async def test_run_code_uses_the_worker_interpreter(sandbox: LocalSandbox) -> None:
    result = await sandbox.run_code("import sys; print(sys.executable)")
    assert result.stdout.strip() == sys.executable


async def test_model_timeout_cannot_exceed_the_sandbox_limit(tmp_path: Path) -> None:
    spec = BackendSandboxSpec(working_dir=str(tmp_path), timeout=timedelta(seconds=0.5))
    async with LocalSandbox(spec) as sandbox:
        started = time.monotonic()
        with pytest.raises(ToolFailure) as info:
            await sandbox.run_code("import time; time.sleep(30)", timeout=1000)
        assert info.value.kind == "timeout"
        assert time.monotonic() - started < 10
