"""The progress line: shown on a terminal while a script waits on a long run, never in logs."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import threading
import time

import pytest

from rath.runtime.progress import progress_enabled
from rath.settings import Settings
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0
SCRIPT = """
from rath import flow
from rath.session import Session
agent = flow.Agent("x", provider=flow.Provider(model="fake-model", base_url={url!r}))
out = agent(Session.from_user_message("go"))
print(out.chunk_table.rows[-1].payload["content"], flush=True)
"""


def _read_until(fd: int, needle: bytes, timeout: float) -> bytes:
    """What the terminal showed, up to and including ``needle`` (bounded)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{needle!r} never appeared; the terminal showed {seen[-500:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            seen += os.read(fd, 4096)
    return seen


def test_a_long_wait_shows_what_the_run_is_doing(rath_env: Settings) -> None:
    shown = threading.Event()

    def model(request: RecordedRequest) -> str:
        shown.wait(WAIT)  # a slow model: answer once the line was seen
        return "done"

    with FakeChatServer(function_handler(model)) as server:
        terminal, stderr = pty.openpty()
        script = subprocess.Popen(
            [sys.executable, "-c", SCRIPT.format(url=server.base_url)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=dict(os.environ),
        )
        os.close(stderr)
        try:
            screen = _read_until(terminal, b"1 agent \xc2\xb7 round 1 \xc2\xb7 0 tokens", WAIT)
            shown.set()
            out, _ = script.communicate(timeout=WAIT)
        finally:
            shown.set()
            script.kill()
            os.close(terminal)
    assert b"rath-agent-" in screen  # the line names the run
    assert out.strip() == "done"


def test_the_line_is_off_outside_a_terminal_or_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert not progress_enabled()  # pytest's stderr is captured, not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert progress_enabled()
    monkeypatch.setenv("RATH_PROGRESS", "0")
    assert not progress_enabled()
