"""The backend registry: backend names to classes, and ``open_sandbox``."""

from __future__ import annotations

import threading

from rath.errors import ConfigError
from rath.sandbox._base import SandboxBackend, SandboxSpec
from rath.sandbox.local import LocalSandbox

_lock = threading.Lock()
_backends: dict[str, type[SandboxBackend]] = {"local": LocalSandbox}


def register_backend(name: str, cls: type[SandboxBackend]) -> None:
    """Make a backend class available to :func:`open_sandbox` under ``name``.

    Registering the same class under the same name again is a no-op.

    Args:
        name: The name a :class:`SandboxSpec` uses in ``backend``.
        cls: A concrete :class:`SandboxBackend` subclass taking the spec as its only argument.

    Raises:
        ConfigError: ``name`` is already registered to a different class, or ``cls`` is not a
            ``SandboxBackend`` subclass.
    """
    if not (isinstance(cls, type) and issubclass(cls, SandboxBackend)):
        raise ConfigError(f"sandbox backend {name!r} must be a SandboxBackend subclass")
    with _lock:
        existing = _backends.get(name)
        if existing is not None and existing is not cls:
            raise ConfigError(
                f"sandbox backend {name!r} is already registered to {existing.__qualname__}"
            )
        _backends[name] = cls


def available_backends() -> tuple[str, ...]:
    """The registered backend names, sorted."""
    with _lock:
        return tuple(sorted(_backends))


def open_sandbox(spec: SandboxSpec) -> SandboxBackend:
    """Create the sandbox ``spec.backend`` names; use it as an async context manager.

    Args:
        spec: The sandbox spec.

    Returns:
        An open sandbox (backends do their I/O lazily, so this does not block).

    Raises:
        ConfigError: The backend name is unknown (the message lists the available ones) or the
            backend refuses the spec.
    """
    with _lock:
        cls = _backends.get(spec.backend)
    if cls is None:
        raise ConfigError(
            f"unknown sandbox backend {spec.backend!r}; available: "
            + ", ".join(available_backends())
        )
    return cls(spec)
