"""The memory plane: a :class:`MemoryBackend` opens :class:`MemoryStore` handles that run ops.

OpenRath's handle, with Rath's ``remember``/``recall``/``get``/``list``/``forget`` built on the
ops beside it (docs/memory.md, "Model").
"""

from __future__ import annotations

import abc
import hashlib
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar, cast

from rath.config import ConfigStore, default_store
from rath.errors import MemoryStoreError
from rath.memory import results as res
from rath.memory.capabilities import MemoryCapabilities, ScopeModel
from rath.memory.errors import (
    InvalidMemoryError,
    MemoryNotFound,
    MemoryStoreClosed,
    MemoryURIError,
    UnsupportedMemoryOp,
)
from rath.memory.op_types import (
    MemoryOp,
    MemoryOpFind,
    MemoryOpRead,
    MemoryOpTree,
    MemoryOpWrite,
    RecallMode,
)
from rath.memory.results import MemoryHit, MemoryHits, MemoryRecord
from rath.memory.spec import DEFAULT_CATEGORY, DEFAULT_SCOPE, MemorySpec
from rath.memory.uri import SCOPES, check_scope, check_segment, format_memory_uri

__all__ = [
    "DEFAULT_CATEGORY",
    "DEFAULT_SCOPE",
    "DEFAULT_TOP_K",
    "MemoryBackend",
    "MemoryCapabilities",
    "MemoryStore",
    "MemoryStoreSpec",
    "ScopeModel",
    "raise_failure",
    "write_op",
]

DEFAULT_TOP_K = 4
# Module-level aliases: inside the class body, `list` names the method below.
_Records = list[MemoryRecord]
_Hits = list[MemoryHit]
Key = str | None
Where = tuple[str | None, str | None]  # (scope, category) of a write or a recall
# A hook is needed only while the public method that calls it is the base class's own.
_HOOK_OF = {"open": "_open", "dispatch": "_dispatch"}
_SPEC_FIELDS = ("namespace", "account_id", "user_id", "agent_id")
_F = TypeVar("_F", bound=Callable[..., Any])

if TYPE_CHECKING:
    # To a type checker the hooks are plain methods, so a backend that overrides the public
    # method instead (written against OpenRath's ABC) type-checks.
    def _hook(method: _F) -> _F:
        return method
else:
    _hook = abc.abstractmethod


@dataclass
class MemoryStoreSpec:
    """Which store to open: a namespace, a remote service's identities, the backend's options.

    Options: ``path``, ``url``, ``api_key``, ``embedding[_provider]``, ``chat[_provider]``.
    """

    namespace: str | None = None
    account_id: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    options: Mapping[str, Any] | None = None

    @classmethod
    def from_config(
        cls, name: str | None = None, *, store: ConfigStore | None = None, **overrides: Any
    ) -> MemoryStoreSpec:
        """Memory preset ``name`` (else the default) with ``overrides``; ``KeyError`` if none."""
        entry = (store or default_store()).get_memory_provider(name)
        preset = {
            "path": entry.path,
            "embedding_provider": entry.embedding_provider,
            "chat_provider": entry.chat_provider,
        }
        options = {key: value for key, value in preset.items() if value is not None}
        fields = {key: overrides.pop(key) for key in _SPEC_FIELDS if key in overrides}
        return cls(**fields, options=options | overrides)


class MemoryStore:
    """An open store of a :class:`MemoryBackend`: OpenRath's handle, with Rath's methods.

    ``remember`` is idempotent (the same ``key``, or the same content in the same scope, gives
    back the stored entry; retried activities rely on it); ``recall`` returns at most ``top_k``
    hits, every score positive. Holders share a store by reference count: ``acquire`` (+1),
    ``release`` (-1; closes at zero); ``with store:`` is one of each. ``state`` is the
    backend's own (a client, a path).
    """

    def __init__(
        self,
        backend: MemoryBackend,
        handle: str,
        spec: MemoryStoreSpec | None = None,
        state: Any = None,
    ) -> None:
        self.backend = backend
        self.handle = handle
        self.spec = spec
        self.state = state
        self.closed = False
        self._refcount = 0
        self._released = False

    def __repr__(self) -> str:
        status = "closed" if self.closed else f"refcount={self.refcount}"
        return f"MemoryStore({self.backend.name!r}, {self.handle!r}, {status})"

    @property
    def refcount(self) -> int:
        """How many holders have acquired the store and not released it."""
        return self._refcount

    def acquire(self) -> Self:
        """Take one reference (+1) and return the store (``MemoryStoreClosed`` once closed)."""
        if self.closed or self._released:
            raise MemoryStoreClosed(self.handle)
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

    def __exit__(self, *exc: object) -> None:
        self.release()

    def dispatch(self, op: MemoryOp) -> res.MemoryResult:
        """Run ``op`` (see :meth:`MemoryBackend.dispatch`; ``MemoryStoreClosed`` once closed)."""
        if self.closed:
            raise MemoryStoreClosed(self.handle)
        return self.backend.dispatch(self, op)

    def close(self) -> None:
        """Close the store through its backend (idempotent; the data stays)."""
        self.backend.close(self)

    def remember(
        self,
        content: str,
        scope: str = DEFAULT_SCOPE,
        category: str = DEFAULT_CATEGORY,
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        """Write ``content`` at ``memory://<scope>/memories/<category>/<id>``; its record."""
        text = content.strip() if isinstance(content, str) else ""
        if not text:
            raise InvalidMemoryError("cannot remember empty content")
        return self._write(
            text, (check_scope(scope), check_segment("category", category)), key, session_id
        )

    def recall(
        self,
        query: str,
        *,
        top_k: int = DEFAULT_TOP_K,
        scope: str | None = None,
        mode: RecallMode = "hybrid",
        category: str | None = None,
    ) -> MemoryHits:
        """Up to ``top_k`` entries ranked for ``query``, best first, positive scores only."""
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise InvalidMemoryError(f"top_k must be a positive integer, got {top_k!r}")
        if scope is not None:
            check_scope(scope)
        if category is not None:
            check_segment("category", category)
        return MemoryHits(self._find(query, top_k, (scope, category), mode))

    def get(self, uri: str) -> MemoryRecord | None:
        """The entry at ``uri`` as a record, or ``None`` (``MemoryURIError`` for a bad URI)."""
        result = self.dispatch(MemoryOpRead(uri=uri))
        if isinstance(result, res.MemoryExecutionFailure) and result.kind == "not_found":
            return None
        read = _checked(result, uri)
        assert isinstance(read, res.MemoryReadResult)
        return res.record_of(uri, read.data if isinstance(read.data, str) else read.data.decode())

    def forget(self, uri: str) -> bool:
        """Delete the entry at ``uri``; whether there was one (where the backend can delete)."""
        return self.backend.forget(self, uri)

    def list(self, *, scope: str | None = None, category: str | None = None) -> _Records:
        """Every ``memories`` entry (of ``scope`` and ``category``), read whole."""
        if category is not None:
            check_segment("category", category)
        records: _Records = []
        for name in [check_scope(scope)] if scope else SCOPES:
            root = f"memory://{name}/memories" + (f"/{category}" if category else "")
            listed = self.dispatch(MemoryOpTree(uri=root, depth=8))
            if isinstance(listed, res.MemoryExecutionFailure):
                continue
            assert isinstance(listed, res.MemoryListResult)
            records += [r for e in listed.entries if not e.is_dir and (r := self.get(e.uri))]
        return records

    def _write(self, text: str, where: Where, key: Key, session_id: Key) -> MemoryRecord:
        """Store checked ``text`` (the ops' way: an entry already there is returned as it is)."""
        op = write_op(text, *where, key=key, session_id=session_id)  # type: ignore[arg-type]
        existing = self.get(op.uri)
        if existing is not None:
            return existing
        written = _checked(self.dispatch(op), op.uri)
        assert isinstance(written, res.MemoryWriteResult)
        return res.record_of(written.uri, op.content, session_id)

    def _find(self, query: str, top_k: int, where: Where, mode: RecallMode) -> _Hits:
        """The ranked hits for a checked recall (the ops' way: a find, records read after)."""
        target = _target(*where)
        found = _checked(self.dispatch(MemoryOpFind(query, target, top_k, mode)), target)
        assert isinstance(found, res.MemoryFindResult)
        hits = []
        for hit in found.hits:
            record = hit.record or (self.get(hit.uri) if hit.score > 0 else None)
            if record is not None and hit.score > 0:
                hits.append(
                    replace(hit, record=record, snippet=hit.snippet or res.snippet(record.content))
                )
        return hits


def write_op(
    content: str,
    scope: str = DEFAULT_SCOPE,
    category: str = DEFAULT_CATEGORY,
    *,
    key: str | None = None,
    session_id: str | None = None,
    wait: bool = True,
) -> MemoryOpWrite:
    """The write ``remember`` sends: at ``key``, else at a hash of the folded content."""
    text = content.strip() if isinstance(content, str) else ""
    if not text:
        raise InvalidMemoryError("cannot remember empty content")
    folded = re.sub(r"\s+", " ", text).strip().lower()
    uri = format_memory_uri(
        scope, category, key or hashlib.sha256(folded.encode()).hexdigest()[:16]
    )
    return MemoryOpWrite(uri, text, wait=wait, metadata={"key": key, "session_id": session_id})


def _concrete_hook(public: str) -> Callable[..., Any]:
    def hook(self: object, *args: object) -> Any:
        raise NotImplementedError(f"{type(self).__name__} overrides {public}(); call that")

    return hook


class _BackendMeta(abc.ABCMeta):
    """Lets a backend implement a public method or its hook (the other becomes concrete).

    ``@dataclass`` recomputes the abstract methods, so the class stays instantiable.
    """

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], /, **kwargs: Any
    ) -> _BackendMeta:
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        for public, hook in _HOOK_OF.items():
            overridden = not getattr(getattr(cls, public, None), "_rath_calls_hook", False)
            if overridden and hook in cls.__abstractmethods__:
                setattr(cls, hook, _concrete_hook(public))
        abc.update_abstractmethods(cast("type[Any]", cls))
        return cls


def _calls_hook(method: _F) -> _F:
    method._rath_calls_hook = True  # type: ignore[attr-defined]
    return method


class MemoryBackend(abc.ABC, metaclass=_BackendMeta):
    """A kind of memory store.

    Subclasses implement ``capabilities`` and, for each pair, OpenRath's public method or
    Rath's hook: ``open`` or ``_open``, ``dispatch`` or ``_dispatch`` (overriding ``open``
    means keeping its own stores: override ``close`` and ``store_count`` too). Failures a
    caller can act on come back as :class:`~rath.memory.results.MemoryExecutionFailure`.
    """

    name: ClassVar[str] = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open_stores: dict[str, MemoryStore] = {}

    @classmethod
    def is_available(cls) -> bool:
        """Whether this backend can run here (its packages are installed)."""
        return cls.unavailable_reason() is None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why this backend cannot run here, with the command that fixes it; ``None`` if it can."""
        return None

    @classmethod
    @abc.abstractmethod
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
    def open(self, spec: MemoryStoreSpec | None = None) -> MemoryStore:
        """Open a store (reference count 0: ``with store:`` or ``acquire`` to share it)."""
        handle, state = self._open(spec)
        store = MemoryStore(self, handle, spec, state)
        with self._lock:
            self._open_stores[store.handle] = store
        return store

    def close(self, store: MemoryStore) -> None:
        """Close ``store`` (idempotent); what it stored stays."""
        with self._lock:
            if store.closed:
                return
            store.closed = True
            self._open_stores.pop(store.handle, None)
        self._close(store)

    @_calls_hook
    def dispatch(self, store: MemoryStore, op: MemoryOp) -> res.MemoryResult:
        """Run ``op`` on ``store`` (``MemoryStoreClosed``, ``UnsupportedMemoryOp`` otherwise)."""
        if store.closed:
            raise MemoryStoreClosed(store.handle)
        if type(op) not in self.supported_ops():
            raise UnsupportedMemoryOp(type(op).__name__, self.name or type(self).__name__)
        return self._dispatch(store, op)

    def forget(self, store: MemoryStore, uri: str) -> bool:
        """Delete the entry at ``uri``; whether there was one (not every backend can)."""
        raise UnsupportedMemoryOp("forget", self.name or type(self).__name__)

    def describe(self, store: MemoryStore) -> MemorySpec | None:
        """How a worker opens ``store``, when this backend says (``None``: by its spec)."""
        return None

    @_hook
    def _open(self, spec: MemoryStoreSpec | None) -> tuple[str, Any]:
        """A new store's handle and the state ``_dispatch`` will find on ``store.state``."""
        raise NotImplementedError

    @_hook
    def _dispatch(self, store: MemoryStore, op: MemoryOp) -> res.MemoryResult:
        """Run a supported op on an open store."""
        raise NotImplementedError

    def _close(self, store: MemoryStore) -> None:
        """Release what ``_open`` made (nothing by default)."""


def raise_failure(failure: res.MemoryExecutionFailure, uri: str | None = None) -> None:
    """Raise the Rath error a failure stands for (``uri``: what the failed op addressed)."""
    if failure.kind == "not_found":
        raise MemoryNotFound(uri or failure.detail or failure.message)
    if failure.kind == "invalid_uri":
        raise MemoryURIError(failure.message)
    retryable = failure.kind in ("transport", "timeout")
    raise MemoryStoreError(f"{failure.kind}: {failure.message}", retryable=retryable)


def _checked(result: res.MemoryResult, uri: str | None) -> res.MemoryResult:
    if isinstance(result, res.MemoryExecutionFailure):
        raise_failure(result, uri)
    return result


def _target(scope: str | None, category: str | None) -> str | None:
    if scope is None:
        if category is not None:
            raise InvalidMemoryError("recall by category needs a scope as well")
        return None
    return f"memory://{scope}" + (f"/memories/{category}" if category else "")
