"""The backend registry: backend names to classes, ``open_sandbox``, and its one error.

``rath.sandbox`` registers ``local``, ``bwrap`` and ``docker``; other backends add themselves
with :func:`register_backend`. *This is global state*, shared by every sandbox of the process.
"""

from __future__ import annotations

import threading

from rath.backend.sandboxes._base import SandboxBackend
from rath.backend.spec import BackendSandboxSpec
from rath.errors import ConfigError

_lock = threading.Lock()
_backends: dict[str, type[SandboxBackend]] = {}


class SandboxUnavailableError(ConfigError):
    """A sandbox backend name is not registered, or the backend cannot run on this worker.

    A :class:`~rath.errors.ConfigError`: trying again on the same worker cannot help (the
    binary is missing, no daemon answers), so the activity boundary fails the call at once
    instead of retrying it.

    Attributes:
        backend: The backend name asked for.
        reason: Why it cannot be used.
        available: The backends that can be used instead (probed on a worker, registered
            names where probing is not possible).
    """

    def __init__(self, backend: str, reason: str, available: tuple[str, ...]) -> None:
        listed = ", ".join(available) or "none"
        super().__init__(
            f"sandbox backend {backend!r} is unavailable: {reason}. Available: {listed}"
        )
        self.backend = backend
        self.reason = reason
        self.available = available


def register_backend(name: str, cls: type[SandboxBackend]) -> None:
    """Make a backend class available to :func:`open_sandbox` under ``name``.

    Registering the same class under the same name again is a no-op.

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


def registered_backends() -> tuple[str, ...]:
    """The registered backend names, sorted, whether or not they can run here (no I/O)."""
    with _lock:
        return tuple(sorted(_backends))


def available_backends() -> tuple[str, ...]:
    """The registered backends that can run on this worker, sorted.

    Each backend is probed (:meth:`SandboxBackend.unavailable_reason`): ``bwrap`` needs the
    ``bwrap`` binary and working namespaces, ``docker`` the SDK and a daemon answering a ping.
    This may block for a few seconds when a daemon does not answer.
    """
    return tuple(name for name, reason in _probe_all() if reason is None)


def check_backend_name(name: str) -> None:
    """Refuse a backend name that is not registered; no I/O, so safe in workflow code.

    Whether the backend can run is known only where the sandbox opens (on a worker).

    Raises:
        SandboxUnavailableError: ``name`` is not registered; the message lists the registered
            names.
    """
    registered = registered_backends()
    if name not in registered:
        raise SandboxUnavailableError(
            name, "no backend of that name is registered (see register_backend)", registered
        )


def open_sandbox(spec: BackendSandboxSpec) -> SandboxBackend:
    """Create the sandbox ``spec.backend`` names; use it as an async context manager.

    Raises:
        SandboxUnavailableError: The backend name is not registered (the message lists the
            backends usable here, and why each other registered one is not). Raised on
            ``__aenter__`` or first use when the backend cannot run on this worker.
        ConfigError: The backend refuses the spec.
    """
    with _lock:
        cls = _backends.get(spec.backend)
    if cls is None:
        probed = _probe_all()
        reason = "no backend of that name is registered"
        unusable = [f"{name}: {why}" for name, why in probed if why is not None]
        if unusable:
            reason += f" (registered but unable to run here: {'; '.join(unusable)})"
        usable = tuple(name for name, why in probed if why is None)
        raise SandboxUnavailableError(spec.backend, reason, usable)
    return cls(spec)


def unavailable_error(name: str, reason: str) -> SandboxUnavailableError:
    """The error for backend ``name`` that cannot run here, listing the backends that can."""
    return SandboxUnavailableError(name, reason, available_backends())


def _probe_all() -> list[tuple[str, str | None]]:
    with _lock:
        backends = sorted(_backends.items())
    return [(name, cls.unavailable_reason()) for name, cls in backends]
