"""OpenRath inventory 1.1: a session's open sandbox handle (require, bind, close, ``with``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FAST, fake_provider

import rath.backend as plane
from rath import flow
from rath.backend import BackendSandboxSpec, BackendToolFilesRead, BackendToolFilesWrite
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply


def test_require_sandbox_opens_one_handle_on_the_sessions_workspace(tmp_path: Path) -> None:
    session = Session.from_user_message("x").to("local", spec=tmp_path)
    handle = session.require_sandbox()
    assert session.require_sandbox() is handle and handle.refcount == 1
    handle.dispatch(BackendToolFilesWrite(path="a.txt", data="hi"))
    assert (tmp_path / "a.txt").read_text() == "hi"
    assert session.close_sandbox() is session
    assert handle.closed
    again = session.require_sandbox()
    assert again is not handle and again.dispatch(BackendToolFilesRead(path="a.txt")).data == "hi"  # type: ignore[union-attr]
    with session:
        pass
    assert again.closed


def test_no_placement_is_a_runtime_error_naming_the_fix() -> None:
    with pytest.raises(RuntimeError, match=r'session\.to\("local"\)'):
        Session.from_user_message("x").require_sandbox()


def test_a_closed_handle_is_refused(tmp_path: Path) -> None:
    session = Session.from_user_message("x").to("local", spec=tmp_path)
    session.require_sandbox().release()
    with pytest.raises(RuntimeError, match="session sandbox is closed"):
        session.require_sandbox()


def test_assigning_a_handle_binds_it_and_a_closed_one_is_refused_on_use(
    rath_env: Settings, tmp_path: Path
) -> None:
    # Issue 29 N2: OpenRath code assigns a plane handle to ``session.sandbox``.
    handle = plane.get("local").open(BackendSandboxSpec(working_dir=str(tmp_path / "ws")))
    session = Session.from_user_message("go")
    session.sandbox = handle  # type: ignore[assignment]
    assert session.require_sandbox() is handle and handle.refcount == 1
    assert session.sandbox is not None and session.sandbox.backend == "local"
    assert session.sandbox.spec.working_dir == str(tmp_path / "ws")
    session.close_sandbox()
    assert handle.closed
    other = Session.from_user_message("x")
    other.sandbox = handle  # type: ignore[assignment]
    with pytest.raises(RuntimeError, match="session sandbox is closed"):
        other.require_sandbox()


def test_bind_sandbox_places_the_session_on_the_handles_workspace(
    rath_env: Settings, tmp_path: Path
) -> None:
    handle = plane.get("local").open(BackendSandboxSpec(working_dir=str(tmp_path / "ws")))
    session = Session.from_user_message("go").bind_sandbox(handle)
    assert handle.refcount == 1 and session.sandbox is not None
    assert session.sandbox.backend == "local"
    script = [
        tool_call_reply(("write_workspace_file", {"path": "out.txt", "content": "agent"})),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(session)
        out.synchronize()
    assert handle.dispatch(BackendToolFilesRead(path="out.txt")).data == "agent"  # type: ignore[union-attr]
    session.close_sandbox()
    out.release()
    assert handle.closed
