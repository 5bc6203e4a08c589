"""The memory package's errors, placed in Rath's error tree (docs/memory.md, "Errors")."""

from __future__ import annotations

from collections.abc import Sequence

from rath.errors import MemoryStoreError, UserError
from rath.llm.embedding import EmbeddingError


class InvalidMemoryError(UserError):
    """A memory request is malformed; retrying it cannot help."""


class MemoryURIError(InvalidMemoryError):
    """A string is not a valid memory URI; the message says which part is wrong."""


class ExtractionError(MemoryStoreError):
    """A model's reply to the fact-extraction prompt is not a JSON list of facts.

    Retryable: a model asked again may answer in the right shape.
    """


class MemoryBackendError(MemoryStoreError):
    """A memory backend failed (a ``RuntimeError``, as in OpenRath)."""


class MemoryStoreClosed(UserError, MemoryBackendError):
    """A memory store was used after it closed (its last reference was released).

    A developer mistake (a :class:`~rath.errors.UserError`, never retried) and, as in OpenRath,
    a :class:`MemoryBackendError` (so a ``RuntimeError``).

    Attributes:
        handle: The closed store's handle.
    """

    def __init__(self, handle: str, message: str | None = None) -> None:
        super().__init__(
            message or f"memory store {handle!r} is closed: open it again", retryable=False
        )
        self.handle = handle

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.handle, str(self)))


class UnsupportedMemoryOp(MemoryBackendError):
    """A backend was given an op type it does not run."""

    def __init__(self, op_type: str, backend_name: str) -> None:
        super().__init__(f"memory backend {backend_name!r} does not support {op_type}")
        self.op_type = op_type
        self.backend_name = backend_name

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.op_type, self.backend_name))


class MemoryBackendNotFound(MemoryBackendError):
    """No memory backend of that name is registered (the message lists those that are).

    Attributes:
        name: The name asked for.
        available: The registered names, a list (as in OpenRath).
    """

    def __init__(self, name: str, available: Sequence[str] = ()) -> None:
        names = ", ".join(available) or "none"
        super().__init__(
            f"no memory backend {name!r} (registered: {names}); install its extra, e.g. "
            "pip install 'rath[openviking]'",
            retryable=False,
        )
        self.name = name
        self.available = list(available)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.name, self.available))


class MemoryNotFound(MemoryBackendError):
    """Nothing is stored at ``uri``."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"no memory at {uri!r}", retryable=False)
        self.uri = uri

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.uri,))


class MemoryConflict(MemoryBackendError):
    """Something else is already stored at ``uri``."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"memory {uri!r} already exists", retryable=False)
        self.uri = uri

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.uri,))


__all__ = [
    "EmbeddingError",
    "ExtractionError",
    "InvalidMemoryError",
    "MemoryBackendError",
    "MemoryBackendNotFound",
    "MemoryConflict",
    "MemoryNotFound",
    "MemoryStoreClosed",
    "MemoryURIError",
    "UnsupportedMemoryOp",
]
