"""A worker runs only work whose store it shares: the store is in every task queue's name.

Two scripts on one embedded server with different ``RATH_STORE_URL`` used to share the
``rath`` queue: a run orphaned by one was taken by the other's in-process worker, which wrote
its rows and catalog record into the wrong store. A store that cannot be used (a bucket that
does not exist, an endpoint that does not answer) used to hang a script for minutes behind
hundreds of ``NoSuchBucket`` lines; now clients and workers stop at start, in one line.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from s3_server import S3Server, s3_server
from temporal_cli import TemporalCli, until
from workers import WorkerProcess, with_tests_importable

from rath.settings import Settings
from rath.store import Catalog, open_objects
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0
SCRIPT = """
import sys
from rath import flow
from rath.contracts.runs import LoopOptions
from rath.session import Session

options = LoopOptions(llm_retry_base_seconds=0.1, llm_heartbeat_seconds=2)
provider = flow.Provider(model="fake-model", base_url=sys.argv[1])  # keyless: no vault entry
out = flow.Agent("You answer.", provider=provider, options=options)(
    Session.from_user_message(sys.argv[2])
)
print(out.run_id, flush=True)
print(out.chunk_table.rows[-1].payload["content"], flush=True)
"""


def _script(env: dict[str, str], base_url: str, message: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT, base_url, message],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _records_of(store_url: str, env: dict[str, str], workflow_id: str) -> list[Any]:
    """The catalog records of ``workflow_id``'s sessions in the store at ``store_url``."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)  # an S3 store reads its endpoint and keys from the environment
    try:
        return [r for r in Catalog(open_objects(store_url)) if r.workflow_id == workflow_id]
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    """A real S3 wire server (moto) on 127.0.0.1 for this module."""
    with s3_server() as server:
        yield server


@pytest.fixture(params=["file", "s3"])
def first_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    """The first script's store (a directory, or a bucket on a real S3 wire server)."""
    if request.param == "file":
        yield (tmp_path / "store-a").as_uri(), {}
        return
    s3: S3Server = request.getfixturevalue("s3")
    yield f"s3://{s3.new_bucket()}/rath", s3.env


def test_two_scripts_with_different_stores_never_take_each_others_runs(
    rath_env: Settings,
    server_address: str,
    tmp_path: Path,
    first_store: tuple[str, dict[str, str]],
) -> None:
    store_a, store_env = first_store
    store_b = (tmp_path / "store-b").as_uri()
    held, release = threading.Event(), threading.Event()

    def model(request: RecordedRequest) -> str:
        asked = request.messages[-1]["content"]
        if asked == "first" and not held.is_set():
            held.set()
            release.wait(WAIT)  # hold the first script's call until that script is gone
        return f"{asked} done"

    base = with_tests_importable(dict(os.environ))
    env_a = base | store_env | {"RATH_STORE_URL": store_a}
    env_b = base | {"RATH_STORE_URL": store_b}  # same data dir, server and RATH_TASK_QUEUE
    cli = TemporalCli(server_address)
    with FakeChatServer(function_handler(model)) as server:
        first = _script(env_a, server.base_url, "first")
        try:
            assert first.stdout is not None
            run_id = first.stdout.readline().strip()
            assert run_id.startswith("rath-"), first.communicate(timeout=WAIT)[1]
            assert held.wait(WAIT)
        finally:
            first.kill()  # the run is orphaned mid-call
            first.wait(WAIT)
        # Its model call is offered again once its heartbeat times out: any worker polling
        # the run's task queue now takes it at its first poll.
        until(lambda: _retry_waiting(cli, run_id), WAIT, f"{run_id}'s call to be retried")

        second = _script(env_b, server.base_url, "second")
        out, err = second.communicate(timeout=WAIT)
        assert second.returncode == 0, err
        assert out.splitlines()[-1] == "second done"
        asked = [r.messages[-1]["content"] for r in server.requests]
        assert asked == ["first", "second"], asked  # the orphan's call was left alone
        assert _records_of(store_b, {}, run_id) == []
        assert cli.status(run_id) == "RUNNING"

        release.set()
        # A worker that shares the first store takes the orphan and finishes it there.
        with WorkerProcess(env_a):
            cli.wait_status(run_id, {"COMPLETED"}, timeout=WAIT)
    assert [r.messages[-1]["content"] for r in server.requests].count("first") == 2
    (record,) = _records_of(store_a, store_env, run_id)
    assert record.status == "completed"
    assert _records_of(store_b, {}, run_id) == []
    queue = cli.describe(run_id)["executionConfig"]["taskQueue"]["name"]
    assert queue == replace(rath_env, store_url=store_a).task_queue
    assert queue != replace(rath_env, store_url=store_b).task_queue


def _retry_waiting(cli: TemporalCli, run_id: str) -> bool | None:
    """True once the run's LLM call waits for a worker again (attempt 2 or later)."""
    pending = cli.describe(run_id).get("pendingActivities") or []
    again = [p for p in pending if int(p.get("attempt", 1)) >= 2]
    return True if again and all("SCHEDULED" in str(p.get("state")) for p in again) else None


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_task_queue_names_the_store(rath_env: Settings, tmp_path: Path) -> None:
    directory = replace(rath_env, store_url=None, store_dir=tmp_path / "x")
    same = [
        directory,
        replace(rath_env, store_url=(tmp_path / "x").as_uri()),
        replace(rath_env, store_url=f"file://{tmp_path}/y/../x/"),
        replace(rath_env, store_url=str(tmp_path / "x")),
    ]
    assert {s.task_queue for s in same} == {directory.task_queue}
    assert directory.task_queue.startswith(f"{rath_env.queue_name}-file-")
    bucket = replace(rath_env, store_url="s3://team/rath")
    assert bucket.task_queue == replace(rath_env, store_url="S3://team/rath/").task_queue
    assert bucket.task_queue.startswith(f"{rath_env.queue_name}-s3-")
    others = {bucket, replace(rath_env, store_url="s3://team/other"), directory}
    assert len({s.task_queue for s in others}) == 3
    assert len({s.affinity_queue for s in others}) == 3


@pytest.mark.parametrize("problem", ["no bucket", "no answer"])
def test_a_store_that_cannot_be_used_stops_a_script_and_a_worker_in_one_line(
    rath_env: Settings, s3: S3Server, problem: str
) -> None:
    env = (
        with_tests_importable(dict(os.environ)) | s3.env | {"RATH_STORE_URL": "s3://nobucket/rath"}
    )
    expected = "its bucket 'nobucket' does not exist"
    if problem == "no answer":
        env["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{_closed_port()}"
        expected = "did not answer"
    with FakeChatServer(function_handler(lambda request: "never asked")) as server:
        started = time.monotonic()
        script = _script(env, server.base_url, "hi")
        _, err = script.communicate(timeout=WAIT * 2)
        script_seconds = time.monotonic() - started
        assert server.requests == []
    assert script.returncode == 1, err
    # One line, naming the store, what is wrong and the script's line that started the run.
    (line,) = err.splitlines()
    assert line.startswith("rath: the object store 's3://nobucket/rath'"), err
    assert expected in line and "(at <string>:" in line, line
    # It used to hang 120 s and more; the check retries once, within 5 s.
    assert script_seconds < WAIT, err

    worker = subprocess.run(
        [sys.executable, "-m", "rath.worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT * 2,
        check=False,
    )
    assert worker.returncode == 2, worker.stderr
    (line,) = (worker.stdout + worker.stderr).splitlines()
    assert (
        line.startswith("rath worker: the object store 's3://nobucket/rath'") and expected in line
    )
