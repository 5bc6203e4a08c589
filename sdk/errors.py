"""Rath's error tree. Every error Rath raises derives from :class:`RathError`.

::

    RathError
    ├── UserError                 a developer mistake: fix the code or config (never retried)
    │   ├── ConfigError           bad configuration (env vars, provider fields, placement)
    │   ├── ConfigEntryNotFoundError  a name the config file does not have (also a KeyError)
    │   ├── ToolNameConflictError a user tool reuses a built-in or another tool's name
    │   ├── NotReadyError         a lazy session was read inside a workflow before it finished
    │   └── LineageConsistencyError  a session graph has a missing parent or a cycle
    └── RunError                  something failed while a run was executing
        ├── RunFailedError        a durable run failed; carries the workflow id
        │   └── BudgetExceededError  a run used up its budget; carries the transcript so far
        ├── LLMError              the model endpoint failed (ProviderError says if a retry may help)
        ├── StoreError            the chunk store is missing an object or is unreadable
        │   ├── StoreUnavailableError  the object store did not answer, even after retries
        │   └── GcRefusedError    garbage collection could not see every reference, so kept all
        ├── SandboxError          a sandbox could not be opened or used
        └── MemoryStoreError      a memory store (or its embedder) could not be read or written

Foreign exceptions (openai, httpx, Temporal) are translated once, at the activity or client
boundary; nothing below that boundary sees them.
"""

from __future__ import annotations

from typing import Any


class RathError(Exception):
    """Root of every error raised by Rath."""


class UserError(RathError):
    """A developer mistake: wrong arguments, bad configuration, unknown names.

    Raised inside workflow code it fails the workflow (it is registered as a workflow failure
    type), instead of leaving a workflow task retrying forever.
    """


class ConfigError(UserError, ValueError, RuntimeError):
    """Configuration or an argument is missing or invalid; the message names it and the fix.

    Also a ``ValueError`` (OpenRath raised that for bad arguments) and a ``RuntimeError``
    (OpenRath's own ``ConfigError`` was one), so handlers written for OpenRath catch it.
    """


class SettingError(ConfigError):
    """A setting of this process's environment cannot be used (its store, its Temporal server).

    The message is one line naming the setting and the fix. Raised when a client or worker
    starts; a script that does not catch it ends with that one line, not a traceback.
    """


class ConnectError(SettingError):
    """Temporal could not be reached, or refused the connection (address, TLS, API key).

    The message is one line naming the setting to fix.
    """


class ConfigEntryNotFoundError(UserError, KeyError):
    """The config file has no entry of that name; the message lists the names it has.

    A ``KeyError``, as in OpenRath, whose message reads plainly (no quotes around it).
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ToolNameConflictError(UserError, ValueError):
    """Two tools share a name, or a user tool shadows a built-in tool (a ``ValueError``)."""


class RunNotFoundError(UserError, LookupError):
    """No run has the workflow id that was given (the message names it and the namespace)."""


class NotReadyError(UserError, RuntimeError):
    """A lazy session's content was read inside workflow code before it was ready."""


class LineageConsistencyError(UserError, ValueError):
    """A session graph names a parent it does not contain, or its lineage has a cycle.

    Also a ``ValueError``, as in OpenRath, so existing ``except ValueError`` handlers catch it.
    """


class RunError(RathError, RuntimeError):
    """A failure that happened while a run was executing.

    Also a ``RuntimeError``: OpenRath's backend, memory, persistence and budget errors were.
    """


class RunFailedError(RunError):
    """A durable run (a Temporal workflow) failed.

    Attributes:
        workflow_id: The id of the failed workflow, for the Temporal UI or CLI.
    """

    def __init__(self, message: str, *, workflow_id: str) -> None:
        super().__init__(message)
        self.workflow_id = workflow_id

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_run_failed, (str(self), self.workflow_id))


class RunUnreachableError(RunError):
    """Temporal stayed unreachable while a client waited on a run; the run may still be going.

    Attributes:
        workflow_id: The run to re-attach to (``rath.session.attach(workflow_id)``).
    """

    def __init__(self, message: str, *, workflow_id: str) -> None:
        super().__init__(message)
        self.workflow_id = workflow_id

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_unreachable, (str(self), self.workflow_id))


def _rebuild_unreachable(message: str, workflow_id: str) -> RunUnreachableError:
    return RunUnreachableError(message, workflow_id=workflow_id)


def _rebuild_run_failed(message: str, workflow_id: str) -> RunFailedError:
    return RunFailedError(message, workflow_id=workflow_id)


class BudgetExceededError(RunFailedError):
    """A run used up its budget (tokens, tool calls or time) and stopped.

    Nothing is lost: :attr:`session` is the transcript up to that point (``None`` only when a
    user callback raised this, as OpenRath's ``on_budget_exceeded`` callbacks do).

    Attributes:
        session: The output session so far, marked ``budget.exceeded`` with the reason.
        reason: Which limit, e.g. ``"total_tokens: 1050 used of 1000"``.
    """

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

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_budget, (str(self), self.workflow_id, self.session, self.reason))


def _rebuild_budget(
    message: str, workflow_id: str, session: Any, reason: str
) -> BudgetExceededError:
    return BudgetExceededError(message, workflow_id=workflow_id, session=session, reason=reason)


class WorkerUnavailableError(RunError):
    """No worker answered for a run: none that polls its task queue is running.

    A run whose ``forward`` or tools are user code is only taken by workers that registered
    that code; the message names the queue and the ``rath worker`` command that serves it.
    """


class LLMError(RunError):
    """The model endpoint failed: an error status, no answer, or a malformed one.

    Subclasses say whether retrying may help (``ProviderError.retryable``).
    """


class StoreError(RunError):
    """The chunk store does not hold an object it should, or cannot be read."""


class PersistenceError(StoreError):
    """A session file (OpenRath's JSONL format) cannot be written, read or locked.

    A ``RuntimeError`` too, as OpenRath's was; the message names the file (and line).
    """


class StoreUnavailableError(StoreError):
    """The object store did not answer, even after retries (a transient failure)."""


class SandboxError(RunError):
    """A sandbox backend could not be opened or used."""


class MemoryStoreError(RunError):
    """A memory store, or the embedder it uses, could not be opened, read or written.

    Attributes:
        retryable: Whether trying again may succeed (a busy database, an unreachable or
            rate-limited embedding endpoint). The activity boundary turns a non-retryable
            one into a non-retryable Temporal failure.
    """

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_memory_store_error, (type(self), str(self), self.retryable))


def _rebuild_memory_store_error(
    cls: type[MemoryStoreError], message: str, retryable: bool
) -> MemoryStoreError:
    return cls(message, retryable=retryable)


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
    """Garbage collection would not sweep: it could not see every reference to the chunks.

    Temporal did not answer (so the runs in flight are unknown), or a catalog record cannot be
    read. A dry run still reports what would go; the message names what to fix.
    """
