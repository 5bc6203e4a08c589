"""A private Docker daemon and a small local image, for the docker sandbox tests and benchmark.

The daemon runs with networking off (no bridge, no iptables, no forwarding, no masquerading)
and keeps its data root, exec root, pid file and socket under one temporary directory, as the
environment notes require. Nothing is pulled: the image is a root filesystem holding
``/bin/sh``, a few coreutils and the worker's own Python interpreter with its standard library,
copied from the host and loaded with ``docker import``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tarfile
import time
from pathlib import Path

import docker

NO_NETWORK_FLAGS = ("--bridge=none", "--iptables=false", "--ip-forward=false", "--ip-masq=false")
TOOLS = (
    "sh", "cat", "date", "env", "false", "grep", "head", "id", "ls", "mkdir", "rm", "sleep",
    "stat", "tail", "touch", "true", "wc", "yes",
)  # fmt: skip
_SKIP_DIRS = {"site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"}


class DockerDaemon:
    """A ``dockerd`` process of our own; :meth:`stop` terminates it (then kills it)."""

    def __init__(self, root: Path, process: subprocess.Popen[bytes]) -> None:
        self.root = root
        self.process = process
        self.host = f"unix://{root}/docker.sock"

    def stop(self, timeout: float = 20.0) -> None:
        """Terminate the daemon, wait (bounded), then kill its whole process group."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # a leftover managed containerd


def start_dockerd(root: Path, *, timeout: float = 30.0) -> DockerDaemon:
    """Start ``dockerd`` with networking off and wait (bounded) until it answers a ping.

    Raises:
        RuntimeError: ``dockerd`` is not installed, exited, or did not answer in time (the
            message ends with the tail of its log).
    """
    binary = shutil.which("dockerd")
    if binary is None:
        raise RuntimeError("dockerd is not installed (apt-get install docker.io)")
    root.mkdir(parents=True, exist_ok=True)
    log = open(root / "dockerd.log", "wb")  # noqa: SIM115 - the daemon writes it until stopped
    argv = [
        binary,
        f"--data-root={root}/data",
        f"--exec-root={root}/exec",
        f"--pidfile={root}/dockerd.pid",
        f"--host=unix://{root}/docker.sock",
        *NO_NETWORK_FLAGS,
    ]
    process = subprocess.Popen(
        argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
    )
    log.close()
    daemon = DockerDaemon(root, process)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if (root / "docker.sock").exists():
            try:
                docker.DockerClient(base_url=daemon.host, timeout=5).ping()
                return daemon
            except docker.errors.DockerException:
                pass
        time.sleep(0.1)
    daemon.stop()
    tail = (root / "dockerd.log").read_text(errors="replace")[-1500:]
    raise RuntimeError(f"dockerd did not become ready within {timeout:g} s:\n{tail}")


def build_python_image(client: docker.DockerClient) -> str:
    """Import a small image with ``/bin/sh``, coreutils and this interpreter; reuse it by tag.

    Returns:
        The image tag, e.g. ``rath-test-python:1a2b3c4d5e6f``.
    """
    python = os.path.realpath(sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    digest = hashlib.sha256(f"{python}|{stdlib}|{sys.version}".encode()).hexdigest()[:12]
    tag = f"rath-test-python:{digest}"
    with contextlib.suppress(docker.errors.ImageNotFound):
        client.images.get(tag)
        return tag
    files = {python, *filter(None, (shutil.which(tool) for tool in TOOLS))}
    for directory, dirs, names in os.walk(stdlib):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.startswith("config-")]
        for name in names:
            if name.endswith(".pyc") and ".opt-" in name:
                continue
            files.add(os.path.join(directory, name))
    for path in list(files):
        if path.endswith(".so") or os.access(path, os.X_OK):
            files.update(_shared_libraries(path))
    data = _rootfs_tar(sorted(files), python)
    repository, version = tag.split(":")
    client.api.import_image_from_data(data, repository=repository, tag=version)
    return tag


def _shared_libraries(path: str) -> set[str]:
    result = subprocess.run(["ldd", path], capture_output=True, text=True, check=False)
    libraries = set()
    for line in result.stdout.splitlines():
        parts = line.split()
        if "=>" in parts and len(parts) > parts.index("=>") + 1:
            target = parts[parts.index("=>") + 1]
        elif parts and parts[0].startswith("/"):
            target = parts[0]  # the dynamic loader
        else:
            continue
        if target.startswith("/"):
            libraries.add(target)
    return libraries


def _rootfs_tar(files: list[str], python: str) -> bytes:
    """A root filesystem: usr-merge symlinks, the given files (dereferenced), ``python3``."""
    buffer = io.BytesIO()
    added: set[str] = set()
    with tarfile.open(fileobj=buffer, mode="w") as tar:

        def add_dir(path: str) -> None:
            if not path or path in added:
                return
            add_dir(os.path.dirname(path))
            info = tarfile.TarInfo(path)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
            added.add(path)

        for top in ("bin", "lib", "lib64", "sbin"):
            host = f"/{top}"
            if os.path.islink(host):
                link = tarfile.TarInfo(top)
                link.type, link.linkname = tarfile.SYMTYPE, os.readlink(host)
                tar.addfile(link)
                added.add(top)
        for directory in ("tmp", "workspace", "etc", "usr/local/bin"):
            add_dir(directory)
        for path in files:
            name = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
            name = name.lstrip("/")
            if name in added or not os.path.isfile(path):
                continue
            add_dir(os.path.dirname(name))
            info = tar.gettarinfo(os.path.realpath(path), arcname=name)
            info.mode |= 0o555 if info.mode & 0o111 else 0o444
            info.uid = info.gid = 0
            with open(path, "rb") as handle:
                tar.addfile(info, handle)
            added.add(name)
        _add_text(tar, "etc/passwd", "root:x:0:0:root:/workspace:/bin/sh\n")
        _add_text(tar, "etc/group", "root:x:0:\n")
        link = tarfile.TarInfo("usr/local/bin/python3")
        link.type, link.linkname = tarfile.SYMTYPE, python
        tar.addfile(link)
    return buffer.getvalue()


def _add_text(tar: tarfile.TarFile, name: str, text: str) -> None:
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    tar.addfile(info, io.BytesIO(data))
