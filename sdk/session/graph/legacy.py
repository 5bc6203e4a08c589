"""OpenRath's legacy lineage record of a loop or compress output (``Session.lineage``)."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID


@dataclass(frozen=True, slots=True)
class SessionLineage:
    """OpenRath's legacy lineage record of a loop or compress output (``Session.lineage``)."""

    producer_user_session_id: UUID
    producer_system_session_id: UUID
    operator: str = "run_session_loop"
