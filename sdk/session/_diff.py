"""``Session.diff``: what one branch has that another lacks since they parted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rath.session.chunk import ChunkRow, format_chunk_row_brief


@dataclass(frozen=True, slots=True)
class SessionDiff:
    """Rows after the longest common prefix of two transcripts (their common ancestor)."""

    common: int
    ours: tuple[ChunkRow, ...]
    theirs: tuple[ChunkRow, ...]

    @classmethod
    def between(cls, ours: Sequence[ChunkRow], theirs: Sequence[ChunkRow]) -> SessionDiff:
        """Compare two transcripts row by row (rows are equal when their content is)."""
        common = 0
        for a, b in zip(ours, theirs, strict=False):
            if a.digest() != b.digest():
                break
            common += 1
        return cls(common=common, ours=tuple(ours[common:]), theirs=tuple(theirs[common:]))

    def __bool__(self) -> bool:
        return bool(self.ours or self.theirs)

    def __str__(self) -> str:
        lines = [f"SessionDiff(common={self.common}, +{len(self.ours)}, -{len(self.theirs)})"]
        lines += [
            f"  + {format_chunk_row_brief(self.common + i, row)}" for i, row in enumerate(self.ours)
        ]
        lines += [
            f"  - {format_chunk_row_brief(self.common + i, row)}"
            for i, row in enumerate(self.theirs)
        ]
        return "\n".join(lines)
