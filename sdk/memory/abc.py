"""OpenRath's memory plane: a :class:`MemoryBackend` opens stores that run memory ops.

A backend (``"local"``, ``"openviking"``) is registered by name (:mod:`rath.memory.registry`).
``backend.open(spec)`` gives a :class:`~rath.memory.BackendMemoryStore`: a Rath
:class:`~rath.memory.MemoryStore` (so ``rath.memory.remember``/``recall`` and agents take it)
whose ``dispatch(op)`` runs OpenRath's ops (:mod:`rath.memory.ops`) and returns its results
(:mod:`rath.memory.results`). Everything here is synchronous.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from rath.memory._errors import MemoryStoreClosed, UnsupportedMemoryOp
from rath.memory._handle import BackendMemoryStore
from rath.memory._store_spec import MemoryStoreSpec
from rath.memory.ops import (
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


class ScopeModel(Enum):
    """How a backend organises what it stores."""

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


class MemoryBackend(ABC):
    """A kind of memory store. Subclasses implement ``_open`` and ``_dispatch``.

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

    def dispatch(self, store: BackendMemoryStore, op: MemoryOp) -> MemoryResult:
        """Run ``op`` on ``store``.

        Raises:
            MemoryStoreClosed: The store is closed.
            UnsupportedMemoryOp: This backend does not run ``type(op)``.
        """
        if store.closed:
            raise MemoryStoreClosed(f"memory store {store.handle!r} is closed: open it again")
        if type(op) not in self.supported_ops():
            raise UnsupportedMemoryOp(type(op).__name__, self.name or type(self).__name__)
        return self._dispatch(store, op)

    def forget(self, store: BackendMemoryStore, uri: str) -> bool:
        """Delete the entry at ``uri``; whether there was one (not every backend can)."""
        raise UnsupportedMemoryOp("forget", self.name or type(self).__name__)

    @abstractmethod
    def _open(self, spec: MemoryStoreSpec | None) -> tuple[str, Any]:
        """A new store's handle and the state ``_dispatch`` will find on ``store.state``."""

    @abstractmethod
    def _dispatch(self, store: BackendMemoryStore, op: MemoryOp) -> MemoryResult:
        """Run a supported op on an open store."""

    def _close(self, store: BackendMemoryStore) -> None:  # noqa: B027 - optional hook
        """Release what ``_open`` made (nothing by default)."""
