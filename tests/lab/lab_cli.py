"""Helpers of the lab tests: the ``rath`` command in a subprocess, and a finished Squad."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from squad_app import Squad, files_model
from support import FAST, fake_provider

from rath.session import Session
from rath.testing import FakeChatServer, function_handler


def rath(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``rath ARGS...`` in a subprocess (the test's environment), its output captured."""
    command = str(Path(sys.executable).with_name("rath"))
    return subprocess.run(
        [command, *args], capture_output=True, text=True, timeout=180, check=False, env=env
    )


def finished_squad(workspace: Path, model: str = "fake-model") -> Session:
    """A Squad run to its end on the scripted model (each coder writes ``coder_x.txt``)."""
    with FakeChatServer(function_handler(files_model)) as server:
        squad = Squad(fake_provider(server, model=model), options=FAST)
        out = squad(Session.from_user_message("build it").to("local", spec=workspace))
        out.synchronize()
    return out
