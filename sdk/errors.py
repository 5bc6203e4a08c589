"""Rath's error tree: every error Rath raises derives from ``RathError``. See docs/modules.md."""

from __future__ import annotations

from typing import Any, TypeVar

_E = TypeVar("_E", bound="RathError")


class RathError(Exception):
    """Root of every error raised by Rath.

    Every subclass pickles with its message and attributes, whatever its constructor takes:
    unpickling rebuilds the error from its ``args`` and restores its attributes, without calling
    ``__init__`` again.
    """

    def __reduce__(self) -> tuple[object, ...]:
        return (_revive, (type(self), self.args), self.__dict__)


def _revive(cls: type[_E], args: tuple[object, ...]) -> _E:
    """An error of type ``cls`` with these ``args``; pickle then restores its attributes."""
    error = cls.__new__(cls)
    error.args = args
    return error


class UserError(RathError):
    """A developer mistake: wrong arguments, bad configuration, unknown names."""


class ConfigError(UserError, ValueError, RuntimeError):
    """Configuration or an argument is missing or invalid; the message names it and the fix."""


class SettingError(ConfigError):
    """A setting of this process's environment cannot be used (its store, its Temporal server)."""


class ConnectError(SettingError):
    """Temporal could not be reached, or refused the connection (address, TLS, API key)."""


class ConfigEntryNotFoundError(UserError, KeyError):
    """The config file has no entry of that name; the message lists the names it has."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ToolNameConflictError(UserError, ValueError):
    """Two tools share a name, or a user tool shadows a built-in tool (a ``ValueError``)."""


class RunNotFoundError(UserError, LookupError):
    """No run has the workflow id that was given (the message names it and the namespace)."""


class NotReadyError(UserError, RuntimeError):
    """A lazy session's content was read inside workflow code before it was ready."""


class LineageConsistencyError(UserError, ValueError):
    """A session graph names a parent it does not contain, or its lineage has a cycle."""


class RunError(RathError, RuntimeError):
    """A failure that happened while a run was executing."""


class RunFailedError(RunError):
    """A durable run (a Temporal workflow) failed."""

    def __init__(self, message: str, *, workflow_id: str) -> None:
        super().__init__(message)
        self.workflow_id = workflow_id


class RunUnreachableError(RunError):
    """Temporal stayed unreachable while a client waited on a run; the run may still be going."""

    def __init__(self, message: str, *, workflow_id: str) -> None:
        super().__init__(message)
        self.workflow_id = workflow_id


class BudgetExceededError(RunFailedError):
    """A run used up its budget (tokens, tool calls or time) and stopped."""

    def __init__(
        self,
        message: str,
        *,
        workflow_id: str = "",
        session: Any = None,
        reason: str = "",
    ) -> None:
        super().__init__(message, workflow_id=workflow_id)
        self.session = session
        self.reason = reason


class WorkerUnavailableError(RunError):
    """No worker answered for a run: none that polls its task queue is running."""


class LLMError(RunError):
    """The model endpoint failed: an error status, no answer, or a malformed one."""


class StoreError(RunError):
    """The chunk store does not hold an object it should, or cannot be read."""


class PersistenceError(StoreError):
    """A session file (OpenRath's JSONL format) cannot be written, read or locked."""


class StoreUnavailableError(StoreError):
    """The object store did not answer, even after retries (a transient failure)."""


class SandboxError(RunError):
    """A sandbox backend could not be opened or used."""


class MemoryStoreError(RunError):
    """A memory store, or the embedder it uses, could not be opened, read or written."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


__all__ = [
    "ConfigError",
    "ConnectError",
    "LLMError",
    "LineageConsistencyError",
    "MemoryStoreError",
    "NotReadyError",
    "PersistenceError",
    "RathError",
    "RunError",
    "RunFailedError",
    "RunNotFoundError",
    "RunUnreachableError",
    "SandboxError",
    "SettingError",
    "StoreError",
    "StoreUnavailableError",
    "ToolNameConflictError",
    "UserError",
    "WorkerUnavailableError",
]


class GcRefusedError(StoreError):
    """Garbage collection would not sweep: it could not see every reference to the chunks."""
