"""Durable agent memory: remember, recall, inject and commit knowledge that outlives a run.

Every store is OpenRath's :class:`MemoryStore`, opened by a backend of the plane (docs/memory.md).

Names load on first use (PEP 562): importing :mod:`rath.memory` loads no store or SDK.
"""

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_dir, lazy_names

if TYPE_CHECKING:
    from rath.errors import MemoryStoreError
    from rath.llm.embedding import Embedder, EmbeddingError
    from rath.llm.openai.embedding import OpenAIEmbedder
    from rath.memory._api import Memory, commit, recall, remember
    from rath.memory._commit import (
        EXTRACTION_PROMPT,
        ExtractedFact,
        build_extraction_messages,
        commit_key,
        commit_messages,
        commit_rows,
        dedup_facts,
        parse_extracted_facts,
        write_facts,
    )
    from rath.memory._inject import (
        MEMORY_PREFIX,
        injectable,
        injected_memory_uris,
        injection_query,
        is_memory_row,
        memory_row,
    )
    from rath.memory.abc import (
        MemoryBackend,
        MemoryCapabilities,
        MemoryStore,
        MemoryStoreSpec,
        ScopeModel,
    )
    from rath.memory.adapters.embedders import E5Embedder, build_embedder, embedding_spec
    from rath.memory.adapters.local import LocalMemoryBackend
    from rath.memory.adapters.openviking import OpenVikingBackend
    from rath.memory.adapters.sqlite import LocalMemoryStore, SqliteMemoryBackend
    from rath.memory.describe import (
        StoreFactory,
        default_memory_store,
        describe_store,
        local_store_factory,
        memory_dir,
        memory_path,
        memory_spec,
        open_memory_store,
        open_plane_store,
    )
    from rath.memory.errors import (
        ExtractionError,
        InvalidMemoryError,
        MemoryBackendError,
        MemoryBackendNotFound,
        MemoryConflict,
        MemoryNotFound,
        MemoryStoreClosed,
        MemoryURIError,
        UnsupportedMemoryOp,
    )
    from rath.memory.op_types import (
        MemoryLevel,
        MemoryOp,
        MemoryOpCommit,
        MemoryOpFind,
        MemoryOpList,
        MemoryOpRead,
        MemoryOpResource,
        MemoryOpSearch,
        MemoryOpTree,
        MemoryOpWrite,
        RecallMode,
    )
    from rath.memory.registry import (
        current,
        get,
        get_class,
        is_available,
        list_names,
        preferred,
        register,
        set_default,
    )
    from rath.memory.results import (
        MemoryCommitResult,
        MemoryEntry,
        MemoryExecutionFailure,
        MemoryFindResult,
        MemoryHit,
        MemoryHits,
        MemoryListResult,
        MemoryReadResult,
        MemoryRecord,
        MemoryResult,
        MemoryWriteResult,
    )
    from rath.memory.spec import (
        DEFAULT_STORE_NAME,
        BackendStoreSpec,
        CommitResult,
        EmbeddingSpec,
        MemorySpec,
    )
    from rath.memory.uri import (
        SCOPES,
        MemoryURI,
        format_memory_uri,
        parse_memory_prefix,
        parse_memory_uri,
    )

__all__ = [
    "DEFAULT_STORE_NAME",
    "EXTRACTION_PROMPT",
    "MEMORY_PREFIX",
    "SCOPES",
    "BackendStoreSpec",
    "CommitResult",
    "E5Embedder",
    "Embedder",
    "EmbeddingError",
    "EmbeddingSpec",
    "ExtractedFact",
    "ExtractionError",
    "InvalidMemoryError",
    "LocalMemoryBackend",
    "LocalMemoryStore",
    "Memory",
    "MemoryBackend",
    "MemoryBackendError",
    "MemoryBackendNotFound",
    "MemoryCapabilities",
    "MemoryCommitResult",
    "MemoryConflict",
    "MemoryEntry",
    "MemoryExecutionFailure",
    "MemoryFindResult",
    "MemoryHit",
    "MemoryHits",
    "MemoryLevel",
    "MemoryListResult",
    "MemoryNotFound",
    "MemoryOp",
    "MemoryOpCommit",
    "MemoryOpFind",
    "MemoryOpList",
    "MemoryOpRead",
    "MemoryOpResource",
    "MemoryOpSearch",
    "MemoryOpTree",
    "MemoryOpWrite",
    "MemoryReadResult",
    "MemoryRecord",
    "MemoryResult",
    "MemorySpec",
    "MemoryStore",
    "MemoryStoreClosed",
    "MemoryStoreError",
    "MemoryStoreSpec",
    "MemoryURI",
    "MemoryURIError",
    "MemoryWriteResult",
    "OpenAIEmbedder",
    "OpenVikingBackend",
    "RecallMode",
    "ScopeModel",
    "SqliteMemoryBackend",
    "StoreFactory",
    "UnsupportedMemoryOp",
    "build_embedder",
    "build_extraction_messages",
    "commit",
    "commit_key",
    "commit_messages",
    "commit_rows",
    "current",
    "dedup_facts",
    "default_memory_store",
    "describe_store",
    "embedding_spec",
    "format_memory_uri",
    "get",
    "get_class",
    "injectable",
    "injected_memory_uris",
    "injection_query",
    "is_available",
    "is_memory_row",
    "list_names",
    "local_store_factory",
    "memory_dir",
    "memory_path",
    "memory_row",
    "memory_spec",
    "open_memory_store",
    "open_plane_store",
    "parse_extracted_facts",
    "parse_memory_prefix",
    "parse_memory_uri",
    "preferred",
    "recall",
    "register",
    "remember",
    "set_default",
    "write_facts",
]


# Each name loads from the module the TYPE_CHECKING block names, on first use.
__getattr__ = lazy_names(__name__)
__dir__ = lazy_dir(__name__)
