"""The memory store interface: what every backend, local or remote, implements.

A store is synchronous and thread-safe; activities call it from worker threads
(``asyncio.to_thread``). :class:`~rath.memory.LocalMemoryStore` is the SQLite implementation.
The stores of the memory plane's backends (:class:`~rath.memory.BackendMemoryStore`: OpenRath's
file store, OpenViking) are subclasses too; the contract each method states is what the
activities and the agent rely on:

* ``remember`` is idempotent: the same ``key``, or the same content in the same scope, gives
  back the record already stored instead of a second one. Retried activities depend on it.
* ``recall`` never returns a hit whose score is zero or less, and returns at most ``top_k``.
* Errors are Rath errors: :class:`~rath.memory.InvalidMemoryError` for malformed requests,
  :class:`~rath.errors.MemoryStoreError` (with ``retryable``) for failures of the store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

from rath.memory.errors import MemoryStoreClosed
from rath.memory.results import MemoryHit, MemoryRecord
from rath.memory.spec import DEFAULT_CATEGORY, DEFAULT_SCOPE, RecallMode

__all__ = ["DEFAULT_CATEGORY", "DEFAULT_SCOPE", "DEFAULT_TOP_K", "MemoryStore", "RecallMode"]

DEFAULT_TOP_K = 4

# Module-level aliases: inside the class body, `list` names the method below.
_Records = list[MemoryRecord]
_Hits = list[MemoryHit]


class MemoryStore(ABC):
    """A place where agents remember and recall knowledge, addressed by memory URIs.

    Use it as a context manager, or call :meth:`close` when done. Holders that share a store
    count references as OpenRath does: :meth:`acquire` (+1), :meth:`release` (-1; the store
    closes when the count reaches zero); ``with store:`` is one acquire and one release, and
    an :class:`~rath.flow.Agent` given the store holds one reference until ``agent.close()``.
    """

    _refcount: int = 0
    _released: bool = False

    @abstractmethod
    def remember(
        self,
        content: str,
        scope: str = DEFAULT_SCOPE,
        category: str = DEFAULT_CATEGORY,
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        """Store ``content`` and return its record, or the record already stored for it.

        Args:
            content: The text to remember (surrounding whitespace is dropped).
            scope: Whose knowledge it is: ``user``, ``agent``, ``session`` or ``resources``.
            category: A grouping name such as ``preferences`` or ``facts``.
            key: An idempotency key. A second call with the same key returns the first call's
                record (whatever its content); retried activities pass the same key.
            session_id: The session the knowledge came from, kept on the record.

        Returns:
            The stored record. Content already stored in the same scope (compared with
            whitespace runs folded) returns the existing record.

        Raises:
            InvalidMemoryError: ``content`` is empty or ``scope``/``category`` is invalid.
            MemoryStoreError: The store or its embedder failed.
        """

    @abstractmethod
    def recall(
        self,
        query: str,
        *,
        top_k: int = DEFAULT_TOP_K,
        scope: str | None = None,
        mode: RecallMode = "hybrid",
        category: str | None = None,
    ) -> _Hits:
        """Return up to ``top_k`` memories relevant to ``query``, best first.

        Args:
            query: Free text. It is never interpreted as search syntax.
            top_k: The most hits to return (at least 1).
            scope: Search only this scope; ``None`` searches all.
            mode: Which ranking to use (see :data:`RecallMode`).
            category: Search only this category (``memory://<scope>/memories/<category>/``).

        Returns:
            Hits with positive scores only; an empty list when nothing matches.

        Raises:
            InvalidMemoryError: ``top_k`` < 1, an invalid scope or category, or
                ``mode="embedding"`` without an embedder.
            MemoryStoreError: The store or its embedder failed.
        """

    @abstractmethod
    def get(self, uri: str) -> MemoryRecord | None:
        """Return the record at ``uri``, or ``None`` if there is none.

        Raises:
            MemoryURIError: ``uri`` is not a memory URI.
        """

    @abstractmethod
    def forget(self, uri: str) -> bool:
        """Delete the record at ``uri``; return whether there was one.

        Raises:
            MemoryURIError: ``uri`` is not a memory URI.
        """

    @abstractmethod
    def list(self, *, scope: str | None = None, category: str | None = None) -> _Records:
        """Return the stored records, oldest first, optionally of one scope and category."""

    @abstractmethod
    def close(self) -> None:
        """Release the store's resources. Idempotent; the stored data persists."""

    @property
    def refcount(self) -> int:
        """How many holders have acquired the store and not released it."""
        return self._refcount

    def acquire(self) -> Self:
        """Take one reference (+1) and return the store.

        Raises:
            MemoryStoreClosed: The last reference was released, so the store is closed.
        """
        if self._released:
            raise MemoryStoreClosed(
                repr(self),
                f"{type(self).__name__} was closed when its last reference was released: "
                "open the store again",
            )
        self._refcount += 1
        return self

    def release(self) -> None:
        """Drop one reference (-1); at zero the store closes. No-op once closed that way."""
        if self._released:
            return
        self._refcount -= 1
        if self._refcount <= 0:
            self._released = True
            self.close()

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
