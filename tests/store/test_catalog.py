"""The session catalog: records beside the chunks, listed oldest first, damage named."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import uuid4

import pytest

from rath.errors import StoreError
from rath.store import Catalog, ChunkStore, SessionRecord
from rath.store.catalog import record_key
from rath.store.objects import DirectoryStore


def test_records_round_trip_and_list_oldest_first(tmp_path: Path) -> None:
    catalog = Catalog(DirectoryStore(tmp_path))
    start = datetime(2026, 1, 1, tzinfo=UTC)
    later = SessionRecord(id=uuid4(), created=start + timedelta(hours=1), agent="Planner")
    earlier = SessionRecord(id=uuid4(), created=start, parents=(later.id,), kind="fork")
    catalog.put(later)
    catalog.put(earlier)

    assert catalog.get(earlier.id) == earlier
    assert [r.id for r in catalog.records()] == [earlier.id, later.id]

    closed = later.model_copy(update={"status": "completed", "closed": start})
    catalog.put(closed)
    assert catalog.get(later.id) == closed

    catalog.delete(earlier.id)
    assert catalog.get(earlier.id) is None
    assert [r.id for r in catalog.records()] == [later.id]


def test_records_share_the_chunk_store_without_clashing(tmp_path: Path) -> None:
    store = ChunkStore(tmp_path)
    digest = store.put_bytes(b"row")
    catalog = Catalog(store.objects)
    record = SessionRecord(id=uuid4(), root=digest)
    catalog.put(record)

    assert store.get_bytes(digest) == b"row"
    assert [r.root for r in catalog.records()] == [digest]


def test_a_damaged_record_is_named_and_skipped_when_listing(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    catalog = Catalog(objects)
    good = SessionRecord(id=uuid4())
    catalog.put(good)
    bad_id = uuid4()
    objects.put(record_key(bad_id), b"{not json")

    with pytest.raises(StoreError, match=str(bad_id)):
        catalog.get(bad_id)
    assert [r.id for r in catalog.records()] == [good.id]
