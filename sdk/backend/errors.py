"""The backend plane's errors: all ``RuntimeError``s (OpenRath's), all picklable."""

from __future__ import annotations

from collections.abc import Sequence

from rath.errors import SandboxError


class BackendError(SandboxError):
    """A sandbox backend failed (also a ``RuntimeError``, as every Rath run error)."""


class UnsupportedBackendTool(BackendError):
    """A backend was given a payload type it does not run.

    ``call_type`` is the payload class (as OpenRath passes it) or its name.
    """

    def __init__(self, call_type: type | str, backend_name: str) -> None:
        shown = call_type if isinstance(call_type, str) else call_type.__name__
        super().__init__(f"backend {backend_name!r} does not support {shown}")
        self.call_type = call_type
        self.backend_name = backend_name


class BackendSandboxClosed(BackendError):
    """A sandbox handle was used after it was closed."""

    def __init__(self, handle: str) -> None:
        super().__init__(f"sandbox {handle!r} is closed")
        self.handle = handle


class BackendNotFound(BackendError):
    """No backend of that name is registered (or none is available)."""

    def __init__(self, name: str, available: Sequence[str] = ()) -> None:
        listed = ", ".join(available) or "none"
        super().__init__(f"no sandbox backend {name!r} (registered: {listed})")
        self.name = name
        self.available = list(available)
