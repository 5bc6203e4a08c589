"""``SessionWriter``: OpenRath's write-ahead session file.

The header is written when the writer is made, each chunk is appended and flushed as it
lands, and ``close()`` writes the trailer and renames ``<id>.jsonl.__partial__`` to
``<id>.jsonl``: the rename is the "closed cleanly" signal. A writer that dies or is abandoned
leaves the partial file, which readers report as ``closed=False`` (a crash). An exclusive,
non-blocking ``flock`` makes a second writer of the same session fail at once.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from rath.errors import PersistenceError
from rath.llm._usage import TokenUsage
from rath.session._chunks import ChunkRow
from rath.session._session import Session
from rath.session.persistence._paths import ensure_sessions_dir, partial_of, session_file
from rath.session.persistence._records import (
    CURRENT_SCHEMA_VERSION,
    PersistedSessionHeader,
    openrath_spec,
)


class SessionWriter:
    """Writes one session's file (see the module docstring).

    Args:
        session: The session whose identity, lineage and sandbox the header records.
        sandbox_handle_id: The sandbox identity to record (Rath's sandbox id by default).
        path: Where the closed file goes (default ``<RATH_HOME>/sessions/<id>.jsonl``).

    Raises:
        PersistenceError: Another writer (any process) holds this session's file.
    """

    def __init__(
        self, session: Session, *, sandbox_handle_id: str | None = None, path: Path | None = None
    ) -> None:
        if path is None:
            ensure_sessions_dir()
        self._path = Path(path) if path is not None else session_file(session.id)
        self._partial = partial_of(self._path)
        self._partial.parent.mkdir(parents=True, exist_ok=True)
        existed = self._partial.exists()
        self._file: IO[str] | None = self._partial.open("a", encoding="utf-8")
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._file.close()
            self._file = None
            raise PersistenceError(f"another process is already writing {self._partial}") from None
        if not existed:
            os.chmod(self._partial, 0o600)
        self._count = 0
        self._closed = False
        placement = session.sandbox
        self._line(
            PersistedSessionHeader(
                schema_version=CURRENT_SCHEMA_VERSION,
                id=session.id,
                created_at=datetime.now(UTC),
                parent_session_ids=session.parent_session_ids,
                lineage_operator=session.lineage_operator,
                lineage_kind=session.lineage_kind,
                lineage_extras=session.lineage_extras,
                sandbox_backend=placement.backend if placement else None,
                sandbox_spec=openrath_spec(placement.spec) if placement else None,
                sandbox_handle_id=sandbox_handle_id
                or (str(placement.sandbox_id) if placement else None),
            ).to_json()
        )

    @property
    def path(self) -> Path:
        """The closed file's path."""
        return self._path

    @property
    def partial_path(self) -> Path:
        """The file being written."""
        return self._partial

    @property
    def chunks_written(self) -> int:
        """Chunks written so far."""
        return self._count

    def write_chunk(self, index: int, row: ChunkRow) -> None:
        """Append one chunk record (flushed at once).

        Raises:
            RuntimeError: The writer was closed or abandoned.
        """
        record = {"record_type": "chunk", "index": index, "kind": row.kind.value}
        self._line(record | {"payload": row.payload})
        self._count += 1

    def close(self, usage: TokenUsage | None = None) -> None:
        """Write the trailer and rename the file to its final name (idempotent)."""
        if self._closed:
            return
        self._line(
            {
                "record_type": "trailer",
                "closed_at": datetime.now(UTC).isoformat(),
                "final_chunk_count": self._count,
                "cumulative_usage": usage.model_dump() if usage is not None else None,
            }
        )
        os.replace(self._partial, self._path)
        self._release()

    def abandon(self) -> None:
        """Stop without a trailer: the partial file stays, as the crash marker."""
        if not self._closed:
            self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self.close()
        else:
            self.abandon()

    def _line(self, record: dict[str, Any]) -> None:
        if self._closed or self._file is None:
            raise RuntimeError(f"session writer for {self._path} is closed")
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()

    def _release(self) -> None:
        self._closed = True
        if self._file is not None:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self._file.close()
            self._file = None
