"""``SandboxSpec`` and ``SandboxLimits``: how to open a sandbox, as data that crosses Temporal.

A value module (no backend code): placements, activity inputs and workflow inputs carry it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

_MIB = 1024 * 1024


class SandboxLimits(BaseModel):
    """Resource limits of the isolating backends; ``local`` ignores them.

    ``docker`` enforces all four with cgroups and ulimits. ``bwrap`` has no cgroup: it sets
    per-process rlimits (``memory_mb`` as ``RLIMIT_DATA``, ``pids`` as ``RLIMIT_NPROC``,
    ``file_size_mb`` as ``RLIMIT_FSIZE``) and does not limit CPU share (``cpus``); see
    ``docs/sandboxes.md``.

    Attributes:
        memory_mb: Memory in MiB (a container's memory, without swap; a bwrap process's data).
        pids: Maximum number of processes.
        cpus: CPU share, in cores (docker only).
        file_size_mb: Largest file a command may write, in MiB.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mb: int = Field(default=1024, gt=0)
    pids: int = Field(default=512, gt=0)
    cpus: float = Field(default=1.0, gt=0)
    file_size_mb: int = Field(default=1024, gt=0)

    @property
    def memory_bytes(self) -> int:
        """``memory_mb`` in bytes."""
        return self.memory_mb * _MIB

    @property
    def file_size_bytes(self) -> int:
        """``file_size_mb`` in bytes."""
        return self.file_size_mb * _MIB


class SandboxSpec(BaseModel):
    """How to open a sandbox.

    Attributes:
        backend: Registered backend name (see :func:`rath.sandbox.available_backends`).
        working_dir: Absolute host path of the workspace. ``None`` means the caller has to
            allocate one before opening; backends that need a directory refuse ``None``.
        command_timeout: Default timeout in seconds for commands and code runs.
        max_output_bytes: Cap, in bytes, on each output stream of a command and on a file read.
        env: Extra environment variables for commands and code runs.
        image: Container image of the ``docker`` backend (``None``: its default image);
            other backends ignore it.
        host_network: Let a ``bwrap`` sandbox share the worker's network, so commands can
            reach services on the host's ``127.0.0.1`` (and whatever else the host reaches).
            Off by default: a private network namespace with only its own loopback. ``docker``
            refuses it (containers always run with ``--network none``); ``local`` never
            isolates the network.
        limits: Resource limits of the isolating backends.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: str = "local"
    working_dir: str | None = None
    command_timeout: float = Field(default=60.0, gt=0)
    max_output_bytes: int = Field(default=65536, gt=0)
    env: dict[str, str] = Field(default_factory=dict)
    image: str | None = None
    host_network: bool = False
    limits: SandboxLimits = Field(default_factory=SandboxLimits)
