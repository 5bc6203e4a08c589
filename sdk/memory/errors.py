"""The memory package's errors, placed in Rath's error tree (docs/memory.md, "Errors")."""

from __future__ import annotations

from collections.abc import Sequence

from rath.errors import MemoryStoreError, UserError


class InvalidMemoryError(UserError):
    """A memory request is malformed; retrying it cannot help."""


class MemoryURIError(InvalidMemoryError):
    """A string is not a valid memory URI; the message says which part is wrong."""


class ExtractionError(MemoryStoreError):
    """A model's fact-extraction reply is no JSON list of facts (retryable: ask again)."""


class MemoryBackendError(MemoryStoreError):
    """A memory backend failed (a ``RuntimeError``, as in OpenRath)."""


class MemoryStoreClosed(UserError, MemoryBackendError):
    """A store was used after it closed: a ``UserError`` and, as in OpenRath, a ``RuntimeError``."""

    def __init__(self, handle: str, message: str | None = None) -> None:
        super().__init__(
            message or f"memory store {handle!r} is closed: open it again", retryable=False
        )
        self.handle = handle


class UnsupportedMemoryOp(MemoryBackendError):
    """A backend was given an op type it does not run."""

    def __init__(self, op_type: str, backend_name: str) -> None:
        super().__init__(f"memory backend {backend_name!r} does not support {op_type}")
        self.op_type = op_type
        self.backend_name = backend_name


class MemoryBackendNotFound(MemoryBackendError):
    """No memory backend ``name`` is registered (``available``: those that are, a list)."""

    def __init__(self, name: str, available: Sequence[str] = ()) -> None:
        names = ", ".join(available) or "none"
        super().__init__(
            f"no memory backend {name!r} (registered: {names}); install its extra, e.g. "
            "pip install 'rath[openviking]'",
            retryable=False,
        )
        self.name = name
        self.available = list(available)


class MemoryNotFound(MemoryBackendError):
    """Nothing is stored at ``uri``."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"no memory at {uri!r}", retryable=False)
        self.uri = uri


class MemoryConflict(MemoryBackendError):
    """Something else is already stored at ``uri``."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"memory {uri!r} already exists", retryable=False)
        self.uri = uri
