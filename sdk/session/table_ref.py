"""Transcripts by reference: what workflow history carries instead of rows. See docs/modules.md."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rath.session.chunk import ChunkRow


class TableRef(BaseModel):
    """A chunk table by reference (see docs/modules.md)."""

    model_config = ConfigDict(frozen=True)

    parts: tuple[str | TableRef, ...] = ()
    rows: tuple[str | ChunkRow, ...] = ()

    @classmethod
    def inline(cls, *rows: ChunkRow) -> TableRef:
        """A table holding ``rows`` inline (no store needed to read it)."""
        return cls(rows=rows)

    @classmethod
    def sealed(cls, digest: str) -> TableRef:
        """The table stored under ``digest``."""
        return cls(parts=(digest,))

    def append(self, *rows: str | ChunkRow) -> TableRef:
        """A new ref with ``rows`` appended; the parts are shared, not copied."""
        return TableRef(parts=self.parts, rows=self.rows + rows)

    def concat(self, other: TableRef) -> TableRef:
        """A ref to this table's rows followed by ``other``'s, in O(1) payload bytes."""
        if other.is_empty():
            return self
        if self.is_empty():
            return other
        if not other.parts:
            return self.append(*other.rows)
        # Flat, whatever the merge order: a reduce over N branches makes one level of N parts.
        # Not validated again (the parts are): validating every prefix made such a reduce
        # quadratic, all of it in one workflow task.
        return TableRef.model_construct(parts=(*self._as_parts(), *other._as_parts()))

    def _as_parts(self) -> tuple[str | TableRef, ...]:
        """This table as parts of a concatenation: its own parts when it has no rows."""
        return self.parts if not self.rows else (self,)

    def inline_rows(self) -> tuple[ChunkRow, ...] | None:
        """The rows, if every one of them is inline; ``None`` if the store is needed."""
        if self.parts or any(isinstance(row, str) for row in self.rows):
            return None
        return tuple(row for row in self.rows if isinstance(row, ChunkRow))

    def is_empty(self) -> bool:
        """True when the ref names no rows at all."""
        return not self.parts and not self.rows
