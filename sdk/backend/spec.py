"""``BackendSandboxSpec`` and ``SandboxLimits``: how to open a sandbox, as a value.

One spec for plain Python and for placements (it crosses Temporal); see docs/sandboxes.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.dataclasses import dataclass
from pydantic_core import ArgsKwargs

_MIB = 1024 * 1024
DEFAULT_COMMAND_TIMEOUT = 60.0
"""Seconds a command may run when the spec sets no ``timeout`` (Rath's sandboxes)."""


class SandboxLimits(BaseModel):
    """Resource limits of the isolating backends; ``local`` ignores them.

    ``docker`` enforces all four with cgroups and ulimits; ``bwrap`` sets per-process rlimits
    (``memory_mb`` as ``RLIMIT_DATA``, ``pids``, ``file_size_mb``) and ignores ``cpus``.
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


@dataclass(
    frozen=True,
    config=ConfigDict(extra="forbid", ser_json_timedelta="float"),
)
class BackendSandboxSpec:
    """How to open a sandbox: OpenRath's fields (positional), then Rath's (keyword).

    Attributes:
        image: Container image (``docker``, ``opensandbox``; ``None``: the backend's default).
        entrypoint: OpenRath's container entrypoint (Rath's backends ignore it).
        env: Extra environment variables for commands and code runs.
        timeout: Default timeout of commands and code runs (``None``: 60 s on Rath's backends).
        working_dir: Absolute host path of the workspace (``None``: the opener allocates one).
        backend: Registered backend name of a placement (``Session.to`` sets it).
        max_output_bytes: Cap on each output stream of a command and on a file read.
        host_network: Let a ``bwrap`` sandbox share the worker's network (``docker`` refuses).
        limits: Resource limits of the isolating backends.
    """

    image: str | None = None
    entrypoint: Sequence[str] | None = None
    env: Mapping[str, str] | None = None
    timeout: timedelta | None = Field(default=None, gt=timedelta(0))
    working_dir: str | None = None
    backend: str = Field(default="local", kw_only=True)
    max_output_bytes: int = Field(default=65536, gt=0, kw_only=True)
    host_network: bool = Field(default=False, kw_only=True)
    limits: SandboxLimits = Field(default_factory=SandboxLimits, kw_only=True)

    @model_validator(mode="before")
    @classmethod
    def _recorded_command_timeout(cls, data: Any) -> Any:
        """Read a recorded spec's ``command_timeout`` (seconds) as ``timeout``."""
        if isinstance(data, ArgsKwargs):  # BackendSandboxSpec(**recorded)
            kwargs = _renamed(dict(data.kwargs or {}))
            return ArgsKwargs(data.args, kwargs) if kwargs is not None else data
        if isinstance(data, dict):
            renamed = _renamed(data)
            return data if renamed is None else renamed
        return data

    @property
    def command_timeout(self) -> float:
        """The default command timeout in seconds (60 when ``timeout`` is ``None``)."""
        if self.timeout is None:
            return DEFAULT_COMMAND_TIMEOUT
        return self.timeout.total_seconds()

    @property
    def environment(self) -> dict[str, str]:
        """``env`` as a plain dict (empty when ``None``)."""
        return dict(self.env or {})


def _renamed(fields: dict[str, Any]) -> dict[str, Any] | None:
    """``fields`` with a recorded ``command_timeout`` as ``timeout`` (``None``: nothing to do)."""
    if "command_timeout" not in fields:
        return None
    fields = dict(fields)
    seconds = fields.pop("command_timeout")
    fields.setdefault("timeout", seconds)
    return fields
