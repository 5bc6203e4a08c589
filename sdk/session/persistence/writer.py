"""``SessionWriter``: OpenRath's write-ahead session file. See docs/modules.md."""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Self
from uuid import UUID

from rath.errors import PersistenceError
from rath.llm.chat_response import RathLLMTokenUsage, usage_json
from rath.session.chunk import ChunkRow
from rath.session.persistence._records import (
    CURRENT_SCHEMA_VERSION,
    PersistedSessionHeader,
)
from rath.session.persistence.paths import ensure_sessions_dir, partial_of, session_file
from rath.session.session import Session
from rath.session.usage import recorded_usage


class SessionWriter:
    """Writes one session's file (see docs/modules.md).

    Raises:
        PersistenceError: Another writer (any process) holds this session's file, or the
            file exists already: closed, or partial (left by a writer that crashed or was
            abandoned). The message names the file and how to free it.
    """

    def __init__(
        self, session: Session, *, sandbox_handle_id: str | None = None, path: Path | None = None
    ) -> None:
        if path is None:
            ensure_sessions_dir()
        self._path = Path(path) if path is not None else session_file(session.id)
        self._partial = partial_of(self._path)
        self._partial.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = _claim(self._partial, self._path, session.id)
        self._count = 0
        self._closed = False
        self._line(_header(session, sandbox_handle_id).to_json())

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
        at = {} if row.at is None else {"at": row.at}  # OpenRath's loader ignores extra keys
        self._line(record | {"payload": row.payload} | at)
        self._count += 1

    def close(self, usage: RathLLMTokenUsage | None = None) -> None:
        """Write the trailer and rename the file to its final name (idempotent)."""
        if self._closed:
            return
        counts = recorded_usage(usage)  # the three counts only, as the file has always held
        self._line(
            {
                "record_type": "trailer",
                "closed_at": datetime.now(UTC).isoformat(),
                "final_chunk_count": self._count,
                "cumulative_usage": None if counts is None else usage_json(counts),
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

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
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


def _claim(partial: Path, final: Path, session_id: UUID) -> IO[str]:
    """Open and lock ``partial`` for a new session file, or refuse (see :class:`SessionWriter`)."""
    existed = partial.exists()
    file = partial.open("a", encoding="utf-8")
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        file.close()
        raise PersistenceError(f"another process is already writing {partial}") from None
    if not existed:
        os.chmod(partial, 0o600)
    taken = _taken(file, partial, final)
    if taken is None:
        return file
    if os.fstat(file.fileno()).st_size == 0:
        partial.unlink()  # empty, and locked by us: nothing of anyone's is lost
    fcntl.flock(file.fileno(), fcntl.LOCK_UN)
    file.close()
    occupied, why = taken
    raise PersistenceError(
        f"{occupied} {why}. load_session({str(session_id)!r}, path={str(occupied)!r}) reads "
        "it; remove that file (or give the writer another path=) to write the session again"
    )


def _taken(file: IO[str], partial: Path, final: Path) -> tuple[Path, str] | None:
    """The file in the way of a new one and why, or ``None`` (we hold the lock on ``partial``)."""
    if os.fstat(file.fileno()).st_size > 0:
        return partial, (
            "was left by a writer that crashed or was abandoned (it has no trailer): a new "
            "writer would append a second header, which no reader accepts"
        )
    if final.exists():
        return final, "already holds a closed session file, which a new writer would replace"
    return None


def _header(session: Session, sandbox_handle_id: str | None) -> PersistedSessionHeader:
    placement = session.sandbox
    return PersistedSessionHeader(
        schema_version=CURRENT_SCHEMA_VERSION,
        id=session.id,
        created_at=datetime.now(UTC),
        parent_session_ids=session.parent_session_ids,
        lineage_operator=session.lineage_operator,
        lineage_kind=session.lineage_kind,
        lineage_extras=session.lineage_extras,
        sandbox_backend=placement.backend if placement else None,
        sandbox_spec=placement.spec if placement else None,
        sandbox_handle_id=sandbox_handle_id or (str(placement.sandbox_id) if placement else None),
    )
