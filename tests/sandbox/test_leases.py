"""Sandbox leases: every placed session holds its sandbox; the last release closes it."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from support import FAST, fake_provider
from workers import WorkerProcess

from rath import flow
from rath.backend.persistence.leases import LeaseRegistry
from rath.runtime import sandboxes
from rath.runtime.sandboxes import leases
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

WRITE = ("write_workspace_file", {"path": "notes.txt", "content": "hi"})


def test_an_allocated_workspace_is_deleted_when_the_last_holder_lets_go(
    rath_env: Settings,
) -> None:
    with FakeChatServer([tool_call_reply(WRITE), text_reply("done")]) as server:
        root = Session.from_user_message("write").to("local")  # a workspace Rath allocates
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(root)
        out.synchronize()
    assert root.sandbox is not None and out.sandbox is not None
    sandbox_id = root.sandbox.sandbox_id
    workspace = rath_env.workspaces_dir / sandbox_id.hex
    assert (workspace / "notes.txt").read_text() == "hi"
    lease = leases().get(sandbox_id)
    assert lease is not None and lease.allocated and lease.owner == rath_env.affinity_queue
    fork = out.fork()  # a derived session holds it too
    assert set(leases().get(sandbox_id).holders) == {str(root.id), str(out.id), str(fork.id)}  # type: ignore[union-attr]
    assert root.release() is False
    with fork:
        assert out.release() is False
        assert workspace.exists()  # the fork still holds it
    # Leaving ``with fork`` released the last holder: the workspace is gone, and the record.
    assert not workspace.exists()
    assert leases().get(sandbox_id) is None


def test_a_named_workspace_is_never_deleted(rath_env: Settings, tmp_path: Path) -> None:
    script = [tool_call_reply(WRITE), text_reply("done")]
    root = Session.from_user_message("write").to("local", spec=tmp_path)
    with FakeChatServer(script) as server, root:
        flow.Agent("x", provider=fake_provider(server), options=FAST)(root).release()
    assert (tmp_path / "notes.txt").read_text() == "hi"


def test_the_registry_keeps_the_first_owner(tmp_path: Path) -> None:
    import uuid

    registry = LeaseRegistry(tmp_path / "leases")
    sandbox_id = uuid.uuid4()
    first = registry.set_owner(sandbox_id, "local", "q@w1", "/ws", True)
    again = registry.set_owner(sandbox_id, "local", "q@w2", "/ws", True)  # e.g. a second claim
    assert first.owner == again.owner == "q@w1"
    registry.acquire(sandbox_id, "local", "a")
    assert registry.release(sandbox_id, "a") is not None  # the last holder
    # Kept until the sandbox is closed: a crash before that cannot lose the workspace.
    assert registry.get(sandbox_id) is not None
    assert registry.release(sandbox_id, "a") is None  # releasing twice closes nothing twice
    registry.acquire(sandbox_id, "local", "b")  # a new holder meanwhile: not forgotten
    registry.forget(sandbox_id)
    assert registry.get(sandbox_id) is not None
    assert registry.release(sandbox_id, "b") is not None
    registry.forget(sandbox_id)
    assert registry.get(sandbox_id) is None


def test_a_release_whose_owner_is_down_returns_and_the_close_happens_later(
    remote_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sandboxes, "CLOSE_TIMEOUT", 1.0)
    env = remote_env | {"RATH_WORKER_ID": "owner"}
    owner = WorkerProcess(env)
    with FakeChatServer([tool_call_reply(WRITE), text_reply("done")]) as server:
        try:
            provider = fake_provider(server, api_key=None)  # remote: no key handed over
            root = Session.from_user_message("write").to("local")
            out = flow.Agent("x", provider=provider, options=FAST)(root)
            out.synchronize()
            assert root.sandbox is not None
            sandbox_id = root.sandbox.sandbox_id
            workspace = Settings.from_env().workspaces_dir / sandbox_id.hex
            assert (workspace / "notes.txt").read_text() == "hi"
            owner.kill()
            assert root.release() is False
            with caplog.at_level(logging.WARNING, logger="rath.sandbox"):
                assert out.release() is True  # after CLOSE_TIMEOUT, without an error
            assert "not closed yet" in caplog.text
            assert leases().get(sandbox_id) is None and workspace.exists()
            owner = WorkerProcess(env)  # back under the same id: the close runs now
            deadline = time.monotonic() + 60
            while workspace.exists():
                assert time.monotonic() < deadline, "the workspace was never deleted"
                time.sleep(0.05)
        finally:
            owner.stop()
