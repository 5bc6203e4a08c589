"""Work a script starts and never reads is finished before it exits, as OpenRath intended.

OpenRath's ``run_session_loop`` waited for its lazy input and its compression was synchronous,
so a chain whose last value is dropped still ran. Rath's exit waits for the runs the script
started (one line says so), bounded by ``RATH_EXIT_WAIT_SECONDS``; a run still going then
gets one line saying how to follow it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from support import fake_provider
from temporal_cli import TemporalCli

from rath.session import Session, run_session_compress, run_session_loop
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler, text_reply

WAIT = 120.0
BOUND = 15.0

CHAIN = """
import sys
from rath.llm import Provider
from rath.session import Session, run_session_loop

provider = Provider(model="fake-model", base_url=sys.argv[1], api_key="test-key")
first = run_session_loop(Session.from_user_message("one"), Session.from_agent_prompt("A."),
                         agent_provider=provider)
second = run_session_loop(first, Session.from_agent_prompt("B."), agent_provider=provider)
print(first.run_id, second.run_id, flush=True)
"""


def _script(env: dict[str, str], base_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHAIN, base_url],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )


def test_an_unread_chain_runs_before_the_script_exits(rath_env: Settings) -> None:
    with FakeChatServer(function_handler(lambda request: "ok")) as server:
        done = _script(dict(os.environ), server.base_url)
        calls = len(server.requests)
    assert done.returncode == 0, done.stderr
    assert calls == 2
    waiting = [line for line in done.stderr.splitlines() if "waiting for" in line]
    assert waiting == ["rath: waiting for 2 runs this script started (Ctrl-C leaves them running)"]
    assert "still going" not in done.stderr
    assert "Task was destroyed" not in done.stderr and "never awaited" not in done.stderr


def test_the_exit_wait_is_bounded_and_names_the_runs_still_going(
    rath_env: Settings, server_address: str
) -> None:
    release = threading.Event()

    def slow(request: object) -> str:
        release.wait(WAIT)  # held until the script has exited
        return "late"

    # Long enough for the first run to start (and reach the model), which never answers in time.
    env = dict(os.environ) | {"RATH_EXIT_WAIT_SECONDS": str(BOUND)}
    with FakeChatServer(function_handler(slow)) as server:
        try:
            done = _script(env, server.base_url)
        finally:
            release.set()
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.split()
    lines = done.stderr.splitlines()
    assert "rath: waiting for 2 runs this script started (Ctrl-C leaves them running)" in lines
    # The first run started and waits on the model; the second waits on the first.
    going = (
        f"rath: run {first} still going: rath sessions follow {first} (needs a worker: rath worker)"
    )
    assert going in lines
    assert f"rath: run {second} never started: its inputs were not ready" in lines
    assert "Task was destroyed" not in done.stderr and "never awaited" not in done.stderr, lines
    TemporalCli(server_address).terminate(first, reason="test over")


def test_a_compression_is_synchronous_in_plain_python(rath_env: Settings) -> None:
    with FakeChatServer(function_handler(lambda request: "the summary")) as server:
        talk = run_session_loop(
            Session.from_user_message("a long talk"),
            Session.from_agent_prompt("A."),
            agent_provider=fake_provider(server),
        )
        out = run_session_compress(
            talk, Session.from_agent_prompt("compress"), agent_provider=fake_provider(server)
        )
        assert not out.pending  # filled when the call returns, as OpenRath's
        assert len(server.requests) == 2
    assert out.chunk_table.rows[-1].payload["content"] == "the summary"


def test_ctrl_c_during_the_exit_wait_leaves_the_runs_running(
    rath_env: Settings, server_address: str
) -> None:
    release = threading.Event()

    def slow(request: object) -> str:
        release.wait(WAIT)  # held until the script has exited
        return "late"

    with FakeChatServer(function_handler(slow)) as server:
        script = subprocess.Popen(
            [sys.executable, "-c", CHAIN, server.base_url],
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert script.stdout is not None
            first, second = script.stdout.readline().split()
            server.wait_for_requests(1, timeout=WAIT)  # the first run is waiting on the model
            script.send_signal(signal.SIGINT)
            _, stderr = script.communicate(timeout=WAIT)
        finally:
            release.set()
            if script.poll() is None:
                script.kill()
    lines = stderr.splitlines()
    assert "rath: waiting for 2 runs this script started (Ctrl-C leaves them running)" in lines
    assert (
        f"rath: run {first} still going: rath sessions follow {first} (needs a worker: rath worker)"
        in lines
    )
    assert f"rath: run {second} never started: its inputs were not ready" in lines
    assert "Traceback" not in stderr, stderr
    TemporalCli(server_address).terminate(first, reason="test over")


STREAMED = """
import sys
from rath.llm import Provider
from rath.session import Session, run_session_loop

provider = Provider(model="fake-model", base_url=sys.argv[1], api_key="test-key")
run_session_loop(
    Session.from_user_message("one"), Session.from_agent_prompt("A."), agent_provider=provider,
    on_event=lambda delta: print(delta.content_delta or "", end="", flush=True),
)
"""


def test_an_unread_streamed_run_delivers_every_event_before_exit(rath_env: Settings) -> None:
    with FakeChatServer([text_reply("every piece arrives")]) as server:
        done = subprocess.run(
            [sys.executable, "-c", STREAMED, server.base_url],
            env=dict(os.environ),
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "every piece arrives"
