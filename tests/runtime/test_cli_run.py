"""``rath run`` on the Squad with a scripted model: live output, detach with Ctrl-C, follow."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from workers import WorkerProcess

from rath.settings import Settings
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0
EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples")


def _rath(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("rath")), *args]


def _read_until(stream: object, needle: str, seen: list[str]) -> None:
    """Collect lines from ``stream`` into ``seen`` until one contains ``needle`` (bounded)."""
    found = threading.Event()

    def read() -> None:
        for line in stream:  # type: ignore[attr-defined]
            seen.append(line)
            if needle in line:
                found.set()
                return

    threading.Thread(target=read, daemon=True).start()
    assert found.wait(WAIT), f"{needle!r} never appeared in {seen}"


def test_run_shows_the_squad_live_detaches_and_is_followed_to_the_end(
    rath_env: Settings,
) -> None:
    coders = threading.Event()

    def model(request: RecordedRequest) -> str:
        prompt = request.messages[0]["content"]
        if prompt.startswith("Do part"):
            coders.wait(WAIT)  # the coders answer only after the command detached
        return f"reply to: {prompt}"

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([EXAMPLES, os.environ.get("PYTHONPATH", "")]))
    with FakeChatServer(function_handler(model)) as server:
        started = subprocess.Popen(
            _rath("run", "03_squad:Squad", "Write a haiku.", "--base-url", server.base_url),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        seen: list[str] = []
        _read_until(started.stdout, "reply to: Break the task into two parts.", seen)
        started.send_signal(signal.SIGINT)
        out, err = started.communicate(timeout=WAIT)
        assert started.returncode == 130, err  # detached by Ctrl-C
        head = "".join(seen)
        run_id = head.split(" run ", 1)[1].split()[0]
        assert run_id.startswith("rath-Squad-")
        assert "Web UI: http://127.0.0.1:" in head
        assert "rath: planner: run rath-planner-" in head
        assert "[planner] user        Write a haiku." in head
        assert f"detached; follow it again with `rath sessions follow {run_id}`" in out
        coders.set()
        with WorkerProcess(env, "--workflows", "03_squad:Squad"):
            followed = subprocess.run(
                _rath("sessions", "follow", run_id),
                env=env,
                capture_output=True,
                text=True,
                timeout=WAIT,
                check=False,
            )
    assert followed.returncode == 0, followed.stderr
    lines = followed.stdout.splitlines()
    assert lines[-1] == "run completed"
    assert any(line.startswith("[reviewer] assistant   reply to: Review") for line in lines)
    assert sum("Write a haiku." in line for line in lines) == 1  # forks' shared rows once


def test_run_one_agent_with_json_events(rath_env: Settings) -> None:
    with FakeChatServer(function_handler(lambda request: "hello")) as server:
        done = subprocess.run(
            _rath("run", "--agent", "Be brief.", "hi", "--json", "--base-url", server.base_url),
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["event"] for e in events][-2:] == ["end", "usage"]
    rows = [e["row"] for e in events if e["event"] == "row"]
    assert [(r["kind"], r["payload"]["content"]) for r in rows] == [
        ("user", "hi"),
        ("assistant", "hello"),
    ]
    assert events[-2]["text"] == "completed"


def test_run_refuses_what_is_not_a_workflow_class(rath_env: Settings) -> None:
    done = subprocess.run(
        _rath("run", "json:dumps", "hi"), capture_output=True, text=True, timeout=WAIT, check=False
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "rath run: rath run 'json:dumps': not a rath.flow.Workflow class"
    )


def test_follow_of_an_unknown_run_fails_in_one_line(rath_env: Settings) -> None:
    done = subprocess.run(
        _rath("sessions", "follow", "rath-nothing"),
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 1
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("rath sessions: no run has workflow id 'rath-nothing'")
    )
