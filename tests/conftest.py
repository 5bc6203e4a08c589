"""Shared fixtures: one real Temporal dev server per test session, in a temporary data dir."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path

import pytest
from machine_turns import remove_after_workers, share_with_workers, turn
from openviking_server import openviking
from support import connect
from temporalio.client import Client

from rath.runtime import devserver
from rath.runtime.devserver import ensure_server, stop_server
from rath.runtime.runtime import shutdown_runtime
from rath.settings import Settings

__all__ = ["openviking"]  # a session fixture: one OpenViking server for every test


def _write_bytecode() -> None:
    """Let this process and every one started after it write ``__pycache__`` files.

    With ``PYTHONDONTWRITEBYTECODE=1`` in the environment (as in this machine's and CI's),
    and a virtualenv installed with ``pip --no-compile``, nothing is ever byte-compiled: every
    xdist worker, worker subprocess, CLI call and example compiled Temporal's SDK, pydantic,
    the model SDKs and Rath from source again, about 1.5 s of CPU per process, hundreds of
    times a run. Here the first process to import a module compiles it and the rest read it.
    Runs when pytest loads this file, before xdist starts its workers (they inherit it).
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


_write_bytecode()
share_with_workers()

WORKERS_PER_CPU = 2
"""Most tests wait on servers and subprocesses: two xdist workers per core keep the cores busy."""
MAX_WORKERS = 8


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject's addopts): two workers per core, at most eight."""
    return min(MAX_WORKERS, WORKERS_PER_CPU * (os.cpu_count() or 1))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with a ``slow`` test first and files with a ``last`` test last.

    With xdist, the longest work then starts before the rest, and a test that needs the
    cores to itself (it pauses the other workers) starts when they are finishing. A file's
    tests stay together and in order (``--dist loadfile``); the order is the same in every
    worker, as xdist requires.
    """
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    last = {item.path for item in items if item.get_closest_marker("last") is not None}
    items.sort(key=lambda item: 2 if item.path in last else 0 if item.path in slow else 1)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """A test marked ``last`` runs alone; the rest share the machine (tests/machine_turns.py).

    Outermost, so pytest-timeout's clock starts once the turn is had: waiting for the
    machine is not the test's time.
    """
    with turn(whole_machine=item.get_closest_marker("last") is not None):
        yield


def pytest_unconfigure() -> None:
    """The end of the run: the turns' lock files go (tests/machine_turns.py)."""
    remove_after_workers()


@pytest.fixture(scope="session", autouse=True)
def _no_default_ports() -> Iterator[None]:
    """Servers the tests start take free ports, never Temporal's default 7233 and 8233.

    Those belong to a developer's own server; and with several xdist workers, a test that
    kills its server and restarts it on the same port must not find another worker's
    server there in between.
    """
    patch = pytest.MonkeyPatch()
    patch.setattr(devserver, "_PREFERRED_PORTS", (0, 0))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def rath_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data dir for the whole session, with the embedded server stopped at the end."""
    home = tmp_path_factory.mktemp("rath-home")
    patch = pytest.MonkeyPatch()
    patch.setenv("RATH_HOME", str(home))
    patch.setenv("XDG_CONFIG_HOME", str(home))  # no Temporal profile of the developer's
    for name in (
        "TEMPORAL_CONFIG_FILE",
        "TEMPORAL_PROFILE",
        "TEMPORAL_API_KEY",
        "TEMPORAL_ADDRESS",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "RATH_STORE_DIR",
        "RATH_STORE_URL",
        "OPEN_SANDBOX_DOMAIN",
        "OPENSANDBOX_DOMAIN",
        "OPEN_SANDBOX_API_KEY",
    ):
        patch.delenv(name, raising=False)
    yield home
    shutdown_runtime()
    stop_server(home)
    patch.undo()


@pytest.fixture(scope="session")
def server_address(rath_home: Path) -> str:
    """The embedded dev server's gRPC address (started once per session)."""
    return ensure_server(rath_home).address


@pytest.fixture
def rath_env(
    rath_home: Path, server_address: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Settings]:
    """Embedded-default settings with a task queue of this test's own (so a fresh worker)."""
    monkeypatch.setenv("RATH_TASK_QUEUE", f"test-{uuid.uuid4().hex[:10]}")
    settings = Settings.from_env()
    yield settings
    shutdown_runtime(settings)


@pytest.fixture
async def client(request: pytest.FixtureRequest, server_address: str) -> AsyncIterator[Client]:
    """A client with Rath's plugin, for tests that work with workflows directly.

    Its settings are the test's own: remote ones when the test uses ``remote_env`` (for
    separately started workers), else the embedded default's of ``rath_env``.
    """
    if "remote_env" in request.fixturenames:
        request.getfixturevalue("remote_env")
        settings = Settings.from_env()
    else:
        settings = request.getfixturevalue("rath_env")
    yield await connect(server_address, settings)


@pytest.fixture
async def bare_client(server_address: str) -> AsyncIterator[Client]:
    """A client with only the pydantic converter and no plugin, for tests whose workers
    register activities of their own (Rath's plugin would register a second set under the
    same names)."""
    yield await connect(server_address)


@pytest.fixture
def remote_env(
    rath_home: Path, server_address: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """Settings for a client and separately started workers on the same server."""
    monkeypatch.setenv("TEMPORAL_ADDRESS", server_address)
    monkeypatch.setenv("RATH_TASK_QUEUE", f"crash-{uuid.uuid4().hex[:8]}")
    env = dict(os.environ)
    yield env
    shutdown_runtime(Settings.from_env())
