"""Rath's search attributes: registered on a namespace that lacks them, skipped where refused.

Both servers are real dev servers started here without Rath's attributes. The second has all
ten of SQLite visibility's Keyword slots taken, so the server itself refuses to add more:
runs must go on untagged, with one warning that says how to add them.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import FAST, fake_provider
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import Client
from workers import WorkerProcess

import rath
from rath import flow
from rath.runtime import devserver
from rath.runtime.runtime import shutdown_runtime
from rath.runtime.search_attributes import usable_search_attributes
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply

SLOTS = {f"Taken{i}": "Keyword" for i in range(10)}  # every Keyword slot SQLite has


@pytest.fixture
def bare_server(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], str]]:
    """Start a dev server with only the given search attributes; returns its address."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(attributes: dict[str, str]) -> str:
        port, _ = devserver._pick_ports()
        cmd = devserver.dev_server_command(
            db_path=tmp_path / f"bare{len(procs)}.db",
            port=port,
            ui_port=0,
            search_attributes=attributes,
            headless=True,
        )
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proc)
        address = f"127.0.0.1:{port}"
        alive = devserver._listener(proc.pid, address)
        ready = devserver._wait_ready(address, lambda: proc.poll() is None, alive, 30)
        assert devserver._run(ready), "the bare dev server did not start"
        return address

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=30)


async def _custom_attributes(address: str) -> set[str]:
    client = await Client.connect(address)
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace="default")
    )
    return set(listed.custom_attributes)


def test_missing_attributes_are_registered_on_first_connect(
    bare_server: Callable[[dict[str, str]], str],
) -> None:
    address = bare_server({})
    assert "RathAgent" not in asyncio.run(_custom_attributes(address))

    async def connect() -> bool:
        return await usable_search_attributes(await Client.connect(address), Settings.from_env())

    assert asyncio.run(connect())
    assert {"RathSessionId", "RathRootSessionId", "RathAgent"} <= asyncio.run(
        _custom_attributes(address)
    )


def test_a_namespace_that_refuses_them_still_runs_sessions(
    bare_server: Callable[[dict[str, str]], str],
    rath_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    address = bare_server(SLOTS)
    monkeypatch.setenv("TEMPORAL_ADDRESS", address)
    monkeypatch.setenv("RATH_TASK_QUEUE", f"no-attributes-{uuid.uuid4().hex[:8]}")
    settings = Settings.from_env()
    try:
        with (
            WorkerProcess(dict(os.environ)),
            FakeChatServer([text_reply("fine")]) as server,
        ):
            agent = flow.Agent("x", provider=fake_provider(server, api_key=None), options=FAST)
            out = agent(Session.from_user_message("go"))
            assert out.chunk_table.rows[-1].payload["content"] == "fine"
            assert [n.run_id for n in rath.run_graph(out).nodes if n.run_id] == [out.run_id]
    finally:
        shutdown_runtime(settings)
    warnings = [line for line in capfd.readouterr().err.splitlines() if "search attributes" in line]
    assert len(warnings) == 1
    assert "cannot have more than 10 search attribute of type Keyword" in warnings[0]
    assert (
        "temporal operator search-attribute create --namespace default --name RathAgent "
        "--type Keyword"
    ) in warnings[0]
