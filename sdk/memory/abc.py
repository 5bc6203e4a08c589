"""OpenRath's memory plane: a :class:`MemoryBackend` opens stores that run memory ops.

A backend (``"local"``, ``"openviking"``) is registered by name (:mod:`rath.memory.registry`).
A new backend either overrides OpenRath's public methods (``open``, ``close``, ``dispatch``,
``store_count``) or Rath's hooks (``_open``, ``_dispatch``, ``_close``), which the public
methods call after their bookkeeping.
``backend.open(spec)`` gives a :class:`~rath.memory.BackendMemoryStore`: a Rath
:class:`~rath.memory.MemoryStore` (so ``rath.memory.remember``/``recall`` and agents take it)
whose ``dispatch(op)`` runs OpenRath's ops (:mod:`rath.memory.op_types`) and returns its results
(:mod:`rath.memory.results`). Everything here is synchronous.
"""

from __future__ import annotations

import threading
from abc import ABC, ABCMeta, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rath.memory._handle import BackendMemoryStore
from rath.memory._store_spec import MemoryStoreSpec
from rath.memory.errors import MemoryStoreClosed, UnsupportedMemoryOp
from rath.memory.op_types import (
    MemoryOp,
    MemoryOpCommit,
    MemoryOpFind,
    MemoryOpList,
    MemoryOpRead,
    MemoryOpResource,
    MemoryOpSearch,
    MemoryOpTree,
    MemoryOpWrite,
)
from rath.memory.results import MemoryResult

__all__ = [
    "MemoryBackend",
    "MemoryCapabilities",
    "MemoryStoreSpec",
    "ScopeModel",
]


_F = TypeVar("_F", bound=Callable[..., Any])
# Each hook is abstract only while the public method that calls it is the base class's own.
_HOOK_OF = {"open": "_open", "dispatch": "_dispatch"}

if TYPE_CHECKING:
    # A type checker cannot see that overriding the public method is enough; to it the hooks
    # are plain methods, so a backend written against OpenRath's ABC type-checks.
    def _hook(method: _F) -> _F:
        return method
else:
    _hook = abstractmethod


class ScopeModel(StrEnum):
    """How a backend organises what it stores (a str enum, as in OpenRath)."""

    KV = "kv"
    FS = "fs"
    VECTOR = "vector"
    HYBRID = "hybrid"


@dataclass(frozen=True, slots=True)
class MemoryCapabilities:
    """What a memory backend can do."""

    scope_model: ScopeModel
    supports_write: bool = True
    supports_read: bool = True
    supports_list: bool = True
    supports_tree: bool = True
    supports_vector_search: bool = False
    supports_intent_search: bool = False
    supports_resource_ingest: bool = False
    supports_session_commit: bool = False
    supports_l0_l1_l2: bool = False

    def ops(self) -> frozenset[type[MemoryOp]]:
        """The op types these capabilities allow (search runs as find without intent)."""
        allowed = {
            MemoryOpWrite: self.supports_write,
            MemoryOpRead: self.supports_read,
            MemoryOpList: self.supports_list,
            MemoryOpTree: self.supports_tree,
            MemoryOpFind: True,
            MemoryOpSearch: True,
            MemoryOpResource: self.supports_resource_ingest,
            MemoryOpCommit: self.supports_session_commit,
        }
        return frozenset(op for op, ok in allowed.items() if ok)


def _calls_hook(method: _F) -> _F:
    """Mark a public method of :class:`MemoryBackend` as the one that calls its hook."""
    method._rath_calls_hook = True  # type: ignore[attr-defined]
    return method


class _BackendMeta(ABCMeta):
    """Lets a backend implement either a public method or the hook it calls."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], /, **kwargs: Any
    ) -> _BackendMeta:
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        abstract = set(cls.__abstractmethods__)
        for public, hook in _HOOK_OF.items():
            if not getattr(getattr(cls, public, None), "_rath_calls_hook", False):
                abstract.discard(hook)
        cls.__abstractmethods__ = frozenset(abstract)
        return cls


class MemoryBackend(ABC, metaclass=_BackendMeta):
    """A kind of memory store.

    Subclasses implement ``capabilities`` and, for each pair, either OpenRath's public method
    or Rath's hook: ``open`` or ``_open``, ``dispatch`` or ``_dispatch``. One that overrides
    ``open`` keeps its own stores, so it should override ``close`` and ``store_count`` too.

    ``open`` and ``close`` count the stores a backend instance has open (``store_count``).
    ``dispatch`` refuses a closed store (:class:`MemoryStoreClosed`) and an op type the
    backend does not run (:class:`UnsupportedMemoryOp`); failures a caller can act on come
    back as :class:`~rath.memory.results.MemoryExecutionFailure` values.
    """

    name: ClassVar[str] = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open_stores: dict[str, BackendMemoryStore] = {}

    @classmethod
    def is_available(cls) -> bool:
        """Whether this backend can run here (its packages are installed)."""
        return cls.unavailable_reason() is None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why this backend cannot run here, with the command that fixes it; ``None`` if it can."""
        return None

    @classmethod
    @abstractmethod
    def capabilities(cls) -> MemoryCapabilities:
        """What this backend can do."""

    @classmethod
    def supported_ops(cls) -> frozenset[type[MemoryOp]]:
        """The op types :meth:`dispatch` runs."""
        return cls.capabilities().ops()

    def store_count(self) -> int:
        """How many stores this instance has open."""
        with self._lock:
            return len(self._open_stores)

    @_calls_hook
    def open(self, spec: MemoryStoreSpec | None = None) -> BackendMemoryStore:
        """Open a store (reference count 0: ``with store:`` or ``acquire`` to share it)."""
        handle, state = self._open(spec)
        store = BackendMemoryStore(self, handle, spec, state)
        with self._lock:
            self._open_stores[handle] = store
        return store

    def close(self, store: BackendMemoryStore) -> None:
        """Close ``store`` (idempotent); what it stored stays."""
        with self._lock:
            if store.closed:
                return
            store.closed = True
            self._open_stores.pop(store.handle, None)
        self._close(store)

    @_calls_hook
    def dispatch(self, store: BackendMemoryStore, op: MemoryOp) -> MemoryResult:
        """Run ``op`` on ``store``.

        Raises:
            MemoryStoreClosed: The store is closed.
            UnsupportedMemoryOp: This backend does not run ``type(op)``.
        """
        if store.closed:
            raise MemoryStoreClosed(store.handle)
        if type(op) not in self.supported_ops():
            raise UnsupportedMemoryOp(type(op).__name__, self.name or type(self).__name__)
        return self._dispatch(store, op)

    def forget(self, store: BackendMemoryStore, uri: str) -> bool:
        """Delete the entry at ``uri``; whether there was one (not every backend can)."""
        raise UnsupportedMemoryOp("forget", self.name or type(self).__name__)

    @_hook
    def _open(self, spec: MemoryStoreSpec | None) -> tuple[str, Any]:
        """A new store's handle and the state ``_dispatch`` will find on ``store.state``.

        Abstract unless the subclass overrides :meth:`open`.
        """
        raise NotImplementedError

    @_hook
    def _dispatch(self, store: BackendMemoryStore, op: MemoryOp) -> MemoryResult:
        """Run a supported op on an open store (abstract unless :meth:`dispatch` is overridden)."""
        raise NotImplementedError

    def _close(self, store: BackendMemoryStore) -> None:
        """Release what ``_open`` made (nothing by default)."""
