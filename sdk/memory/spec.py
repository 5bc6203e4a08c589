"""Which store a run uses, and what a commit stored: values crossing Temporal.

docs/memory.md, "Naming a store: MemorySpec".
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
    """Which embedder a store uses (``openai`` or ``e5``): enough to build it on a worker."""

    model_config = ConfigDict(frozen=True)

    kind: EmbeddingKind = "openai"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    dimensions: int | None = None
    timeout: float = 60.0


OptionValue = str | int | float | bool | None


class BackendStoreSpec(BaseModel):
    """A plane store described for a worker: backend name, identities, plain options.

    A key travels as ``api_key_ref``, a reference the worker resolves.
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

    ``local``: the SQLite file ``<RATH_HOME>/memory/<store>.db`` of the worker (or ``path``);
    ``backend``: the plane store ``backend`` describes. Fields: docs/memory.md.
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
    """What a commit stored: facts of the session in the store, facts skipped (said already)."""

    model_config = ConfigDict(frozen=True)

    written: int = 0
    skipped: int = 0
    uris: tuple[str, ...] = ()
    usage: RathLLMTokenUsage | None = None
    preview: str = "nothing to extract"
