"""``BwrapSandbox``: commands and code under bubblewrap; files on the host, confined as local.

The mounts, what they guarantee and what they do not: docs/sandboxes.md, "bwrap".
"""

from __future__ import annotations

import functools
import math
import os
import posixpath
import shutil
import subprocess
import sys

from rath.backend.capabilities import Capabilities, IsolationLevel
from rath.backend.sandboxes._files import is_inside
from rath.backend.sandboxes._hostdir import GUEST_WORKSPACE, HostDirSandbox
from rath.backend.sandboxes._process import Execution, ProcessOutput, run_process

# Host root entries that get fresh instances (or the workspace) instead of a read-only bind.
_REPLACED = {"dev", "proc", "tmp", "run", GUEST_WORKSPACE.lstrip("/")}
# Runtime state: the host's unix sockets (the Docker daemon, D-Bus, user services) live here,
# and a read-only mount does not stop connect() on a socket file, so these are empty.
_RUNTIME_DIRS = ("/run", "/var/run")


class BwrapSandbox(HostDirSandbox):
    """A sandbox running commands and code in a bubblewrap jail over a host workspace.

    Args:
        spec: The sandbox spec; ``working_dir`` must be an absolute path. ``host_network``
            and ``limits`` apply (``limits.cpus`` does not: bwrap has no cgroup).

    Raises:
        ConfigError: ``spec.working_dir`` is missing or not absolute.
        SandboxUnavailableError: On ``__aenter__`` or first use, when ``bwrap`` or ``prlimit``
            is not installed or cannot create namespaces (the message lists the backends
            available instead).
    """

    name = "bwrap"
    capabilities = Capabilities(IsolationLevel.NAMESPACE, True, True, True)
    guest_workspace = GUEST_WORKSPACE

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why bwrap cannot run here (missing binary, no namespaces), or ``None``."""
        return _missing_binary() or _probe()

    def _python_argv(self) -> list[str]:
        return [_base_interpreter(), "-I", "-"]

    async def _execute(self, run: Execution) -> ProcessOutput:
        bwrap = self.bwrap_argv(run.root, run.cwd)
        return await run_process(run, wrapper=[*bwrap, "--", *self.limit_argv(run.timeout), "--"])

    def bwrap_argv(self, root: str, cwd: str = ".") -> list[str]:
        """The ``bwrap`` command line (without the program) for the workspace ``root``.

        The program starts in ``cwd``, a directory relative to the workspace.

        Order matters: a mount shadows what earlier ones put at or below its path, so the
        fresh ``/tmp`` comes after the root binds, and the workspace bind comes last, after
        every tmpfs, so no tmpfs can hide it wherever its host path is.
        """
        argv = [_which("bwrap"), *_root_binds(), "--dev", "/dev", "--proc", "/proc"]
        argv += ["--tmpfs", "/tmp", *_interpreter_binds()]
        for runtime_dir in _runtime_dirs():
            argv += ["--tmpfs", runtime_dir]
        for hidden in _data_dirs():
            argv += ["--tmpfs", hidden]
        argv += ["--dir", GUEST_WORKSPACE, "--bind", root, GUEST_WORKSPACE, "--remount-ro", "/"]
        argv += ["--unshare-all", *(["--share-net"] if self.spec.host_network else [])]
        argv += ["--cap-drop", "ALL", "--die-with-parent", "--new-session"]
        return [*argv, "--chdir", posixpath.normpath(posixpath.join(GUEST_WORKSPACE, cwd))]

    def limit_argv(self, timeout: float | None) -> list[str]:
        """The ``prlimit`` command line applying ``spec.limits`` (CPU time from ``timeout``).

        No ``timeout`` (a backend plane command without one): no CPU-time limit either.
        """
        limits = self.spec.limits
        cpu: list[str] = []
        if timeout is not None:
            seconds = math.ceil(timeout) + 1  # a backstop: the wall-clock timeout kills first
            cpu = [f"--cpu={seconds}:{seconds + 1}"]
        return [
            _which("prlimit"),
            *cpu,
            f"--data={limits.memory_bytes}",
            f"--fsize={limits.file_size_bytes}",
            f"--nproc={limits.pids}",
            "--core=0",
        ]


def _missing_binary() -> str | None:
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    if shutil.which("prlimit") is None:
        return "prlimit is not installed (apt-get install util-linux)"
    return None


def _which(program: str) -> str:
    path = shutil.which(program)
    if path is None:  # checked when the sandbox was created; uninstalled since
        raise FileNotFoundError(program)
    return path


@functools.cache
def _probe() -> str | None:
    """Run a minimal jail once per process; the reason it failed, or ``None``."""
    argv = [_which("bwrap"), "--ro-bind", "/", "/", "--unshare-all", "--cap-drop", "ALL"]
    try:
        result = subprocess.run(
            [*argv, "--die-with-parent", "--", "/bin/true"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not be run: {type(exc).__name__}"
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()[:300]
        return f"bwrap cannot create namespaces on this host: {detail}"
    return None


@functools.cache
def _root_binds() -> tuple[str, ...]:
    """Read-only binds (and symlinks) recreating the host's ``/`` entries."""
    argv: list[str] = []
    with os.scandir("/") as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name in _REPLACED:
                continue
            if entry.is_symlink():
                argv += ["--symlink", os.readlink(entry.path), entry.path]
            else:
                argv += ["--ro-bind-try", entry.path, entry.path]
    return tuple(argv)


@functools.cache
def _runtime_dirs() -> tuple[str, ...]:
    """The runtime-state directories to empty (``/var/run`` is usually a link to ``/run``)."""
    found = [path for path in _RUNTIME_DIRS if os.path.isdir(path) and not os.path.islink(path)]
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isdir(xdg) and not any(is_inside(xdg, path) for path in found):
        found.append(os.path.realpath(xdg))
    return tuple(found)


@functools.cache
def _base_interpreter() -> str:
    """The real path of the worker's base interpreter (the one a venv's ``python`` runs)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _interpreter_binds() -> list[str]:
    """Keep the base interpreter visible in the rare case it is installed under ``/tmp``.

    Then (and only then) its installation shows, read-only, inside the fresh ``/tmp``.
    """
    if not is_inside(_base_interpreter(), "/tmp"):
        return []
    prefix = os.path.realpath(sys.base_prefix)
    return ["--ro-bind", prefix, prefix]


def _data_dirs() -> list[str]:
    """Rath's data dir and chunk store, hidden unless the interpreter lives inside them."""
    candidates = [os.environ.get("RATH_HOME") or "~/.rath", os.environ.get("RATH_STORE_DIR")]
    hidden = []
    for candidate in filter(None, candidates):
        path = os.path.realpath(os.path.expanduser(candidate))
        if path == "/" or not os.path.isdir(path) or is_inside(path, "/tmp"):
            continue  # /tmp is a fresh tmpfs already
        if is_inside(_base_interpreter(), path):
            continue
        hidden.append(path)
    return hidden
