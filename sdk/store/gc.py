"""Garbage collection of the chunk store, which cannot lose a chunk a live session references.

What is live: every chunk reachable from the root node of a catalogued session
(``catalog/<id>.json``), from the runs in flight (their refs, or digests their histories name,
passed in by the caller), and nothing else. What goes: chunks and nodes (``ab/<62 hex>``) that
are not live and were written more than ``grace`` ago. Catalog records, sandbox leases, the
memory store and any other key are never swept as chunks. Stale sandbox lease records (last
written more than ``lease_grace`` ago, and naming no holder a run in flight mentions) are
removed, and so are tool-call journal records (``calls/``, see :mod:`rath.store.call_journal`)
written more than ``grace`` (and at least an hour) ago by a run that is no longer in flight: no
attempt can read them.

**Two steps: the trash, then deletion.** An unreferenced old chunk is first *moved* to
``trash/<key>`` (the copy is written before the original is removed; on a directory it is one
``rename``), and the trash copy is deleted only by a later collection, once it has lain there
for ``grace`` and is still unreferenced. A reader that misses a chunk looks in the trash and
puts it back (:meth:`ChunkStore.get_bytes`).

**Why no race loses data.** Writes are content-addressed and put-if-absent, so a writer that
meets an existing chunk writes nothing and does not refresh its age: an old chunk nobody
references can become referenced again (the same system prompt in a new session) by a run
whose record or history does not show it yet. Call that reference's age at creation ``t``,
and ``D`` the longest time until a reference becomes visible to collection: a run's history
(an activity's result is recorded when it completes) or the catalog (a record is written when
a run ends). Assume ``D < grace``. Then:

1. A chunk in use is never deleted while only in the store: a collection moves it, never
   deletes it. Whatever moved it, it is in the trash, and any read puts it back.
2. A trash copy moved at ``m`` is deleted only if unmarked by a mark that starts after
   ``m + grace``. A reference made before ``m`` is visible by ``t + D < m + grace``, so that mark
   sees it and the chunk is restored instead. A reference made after ``m`` by writing the chunk
   wrote it afresh (it was not in the store); one copied from another reference goes back to
   one of these two cases.
3. A collection lists the store before it reads the roots, and only moves chunks written more
   than ``grace`` before its listing began: a chunk written during a collection is never a
   candidate.

No step relies on the collection being quick or on any clock but the store's (listing times and
the trash age are the store's own timestamps; a host clock skewed against the store's adds to
``D``). ``D`` is bounded by the longest activity (a run records a result when it completes)
plus the time a finished run takes to write its record; what it does not bound is a session
held only in a client's memory, never run nor catalogued, for longer than ``grace``: its
chunks may go (reading them later is a :class:`~rath.errors.StoreError` that names the object).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Literal

from rath.backend.lease import Lease
from rath.backend.persistence.leases import LeaseRegistry
from rath.errors import GcRefusedError, StoreError
from rath.session.table_ref import TableRef
from rath.store._gc_mark import mark
from rath.store._trash import TRASH_PREFIX, is_chunk_key, move_to_trash, restore, trash_key
from rath.store.call_journal import CALLS_PREFIX, read_record, record_run
from rath.store.catalog import CATALOG_PREFIX
from rath.store.chunk_store import ChunkStore
from rath.store.objects import ObjectInfo, ObjectStore

DEFAULT_GRACE = timedelta(hours=1)
"""How old an unreferenced chunk must be before it goes to the trash (and a trash copy before
it is deleted)."""

DEFAULT_LEASE_GRACE = timedelta(hours=24)
"""How long a sandbox lease record may go unwritten before it is stale."""

_PROGRESS_EVERY = 2000

Phase = Literal["list", "mark", "sweep", "leases", "calls"]


@dataclass(frozen=True, slots=True)
class GcProgress:
    """Where a long collection is: its phase, items done, and the total when known."""

    phase: Phase
    done: int
    total: int | None = None


@dataclass(frozen=True, slots=True)
class GcReport:
    """What a collection found and did (or, in a dry run, would do).

    Attributes:
        dry_run: Nothing was written or deleted.
        grace_seconds: The grace period used.
        objects: Chunks and nodes in the store (not counting the trash), and their bytes.
        live: Of those, how many a session or a run in flight references.
        young: Unreferenced ones kept because they are younger than the grace.
        trashed: Moved to the trash (this collection), and their bytes.
        purged: Trash copies deleted for good (moved by an earlier collection), and bytes.
        restored: Trash copies put back because something references them again.
        sessions: Catalog records read; ``live_roots``: roots from runs in flight.
        missing: Root nodes found nowhere (neither in the store nor in its trash).
        leases: Stale sandbox lease records removed.
        calls: Tool-call journal records of finished runs removed.
        seconds: How long the collection took.
    """

    dry_run: bool
    grace_seconds: float
    objects: int = 0
    object_bytes: int = 0
    live: int = 0
    young: int = 0
    trashed: int = 0
    trashed_bytes: int = 0
    purged: int = 0
    purged_bytes: int = 0
    restored: int = 0
    sessions: int = 0
    live_roots: int = 0
    missing: tuple[str, ...] = ()
    leases: tuple[Lease, ...] = ()
    calls: int = 0
    seconds: float = 0.0


@dataclass
class _Listing:
    chunks: dict[str, ObjectInfo] = field(default_factory=dict)
    trash: dict[str, ObjectInfo] = field(default_factory=dict)  # by chunk key
    calls: list[ObjectInfo] = field(default_factory=list)


def collect_garbage(
    store: ChunkStore | ObjectStore,
    *,
    live_roots: Iterable[str | TableRef] = (),
    hints: Iterable[str] = (),
    grace: timedelta = DEFAULT_GRACE,
    dry_run: bool = False,
    leases: LeaseRegistry | None = None,
    live_holders: Collection[str] = (),
    lease_grace: timedelta = DEFAULT_LEASE_GRACE,
    runs_in_flight: Collection[str] | None = None,
    progress: Callable[[GcProgress], None] | None = None,
) -> GcReport:
    """Collect the store's garbage (see the module docstring for what goes and why it is safe).

    Args:
        store: The chunk store (or its object store) to collect.
        live_roots: Node digests or refs of the runs in flight.
        hints: Digests that may be live (hex strings from run histories); those that name
            nothing are ignored.
        grace: Minimum age of what is moved to the trash, and of trash copies deleted.
        dry_run: Report what would go; write and delete nothing.
        leases: The sandbox lease registry to clean; None leaves leases alone.
        live_holders: Session ids of the runs in flight (a lease they hold is never stale).
        lease_grace: How long a lease record must have gone unwritten to be stale.
        runs_in_flight: ``<workflow id>/<run id>`` of every run in flight: the tool-call
            records older than ``grace`` (and an hour) of any other run are removed. None leaves the
            journal alone.
        progress: Called now and then during long phases.

    Raises:
        GcRefusedError: A catalog record cannot be read (its chunks would look unreferenced).
    """
    objects = store.objects if isinstance(store, ChunkStore) else store
    started = time.monotonic()
    report = _Counts(progress)
    cutoff = time.time() - grace.total_seconds()  # taken before the listing begins
    # A journal record goes only once it is at least an hour old, whatever the grace: the
    # list of runs in flight comes from Temporal's visibility, which can lag.
    calls_cutoff = time.time() - max(grace, DEFAULT_GRACE).total_seconds()
    listing = _list(objects, report)
    roots = _catalog_roots(objects, report)
    live_refs = list(live_roots)
    report.live_roots = len(live_refs)
    # Hints are not filtered by the listing: a node written after it (so not a candidate) may
    # name old chunks that are.
    marks = mark(
        objects,
        [*roots, *live_refs],
        hints=hints,
        on_node=lambda n: report.tick("mark", n),
    )
    live = marks.live
    report.missing = tuple(marks.missing)
    sweep = _Sweep(objects, listing, live, cutoff, dry_run, report)
    sweep.empty_trash()
    sweep.fill_trash()
    if leases is not None:
        report.leases = tuple(
            _sweep_leases(leases, time.time() - lease_grace.total_seconds(), live_holders, dry_run)
        )
    if runs_in_flight is not None:
        sweep.clear_calls(frozenset(runs_in_flight), calls_cutoff)
    return report.done(dry_run, grace, time.monotonic() - started)


def _digest(key: str) -> str:
    return key.replace("/", "", 1)


class _Counts:
    """The report as it is built, and the progress callback."""

    def __init__(self, progress: Callable[[GcProgress], None] | None) -> None:
        self.progress = progress
        self.fields: dict[str, int] = {}
        self.missing: tuple[str, ...] = ()
        self.leases: tuple[Lease, ...] = ()
        self.live_roots = 0

    def add(self, name: str, amount: int = 1) -> None:
        self.fields[name] = self.fields.get(name, 0) + amount

    def tick(self, phase: Phase, done: int, total: int | None = None) -> None:
        if self.progress is not None and (done % _PROGRESS_EVERY == 0 or done == total):
            self.progress(GcProgress(phase, done, total))

    def done(self, dry_run: bool, grace: timedelta, seconds: float) -> GcReport:
        return GcReport(
            dry_run=dry_run,
            grace_seconds=grace.total_seconds(),
            missing=self.missing,
            leases=self.leases,
            live_roots=self.live_roots,
            seconds=seconds,
            **self.fields,
        )


def _list(objects: ObjectStore, report: _Counts) -> _Listing:
    listing = _Listing()
    for count, info in enumerate(objects.list(), start=1):
        report.tick("list", count)
        if is_chunk_key(info.key):
            listing.chunks[info.key] = info
            report.add("objects")
            report.add("object_bytes", info.size)
        elif info.key.startswith(TRASH_PREFIX) and is_chunk_key(key := info.key[6:]):
            listing.trash[key] = info
        elif info.key.startswith(CALLS_PREFIX):
            listing.calls.append(info)
    return listing


def _catalog_roots(objects: ObjectStore, report: _Counts) -> list[str]:
    """The root digest of every catalogued session; an unreadable record stops the sweep."""
    roots: list[str] = []
    for info in objects.list(CATALOG_PREFIX):
        try:
            record = json.loads(objects.get(info.key))
            root = record.get("root")
            if root is not None and not isinstance(root, str):
                raise ValueError(root)
        except FileNotFoundError:  # deleted meanwhile: its session is gone
            continue
        except (ValueError, AttributeError):
            raise GcRefusedError(
                f"catalog record {info.key!r} in {objects.describe()!r} cannot be read, so "
                "the chunks of its session cannot be told from garbage; nothing was swept. "
                "Restore the record from a backup, or delete it if that session may go"
            ) from None
        report.add("sessions")
        if root:
            roots.append(root)
    return roots


@dataclass
class _Sweep:
    objects: ObjectStore
    listing: _Listing
    live: set[str]
    cutoff: float
    dry_run: bool
    report: _Counts

    def empty_trash(self) -> None:
        """Restore trash copies that are referenced again; delete those past the grace."""
        objects, report = self.objects, self.report
        total = len(self.listing.trash)
        for done, (key, info) in enumerate(self.listing.trash.items(), start=1):
            report.tick("sweep", done, total)
            if _digest(key) in self.live:
                report.add("restored")
                if not self.dry_run:
                    if key not in self.listing.chunks and restore(objects, key) is None:
                        continue  # gone meanwhile (another collection), or damaged: leave it
                    objects.delete(trash_key(key))
            elif info.modified < self.cutoff:
                report.add("purged")
                report.add("purged_bytes", info.size)
                if not self.dry_run:
                    objects.delete(trash_key(key))

    def fill_trash(self) -> None:
        """Move unreferenced chunks older than the grace to the trash."""
        report = self.report
        total = len(self.listing.chunks)
        for done, (key, info) in enumerate(self.listing.chunks.items(), start=1):
            report.tick("sweep", done, total)
            if _digest(key) in self.live:
                report.add("live")
            elif info.modified >= self.cutoff:
                report.add("young")
            elif self.dry_run:
                report.add("trashed")
                report.add("trashed_bytes", info.size)
            else:
                size = move_to_trash(self.objects, key)
                if size is not None:
                    report.add("trashed")
                    report.add("trashed_bytes", size)

    def clear_calls(self, runs_in_flight: frozenset[str], written_before: float) -> None:
        """Remove the journal records written before ``written_before`` by runs not in flight."""
        old = [info for info in self.listing.calls if info.modified < written_before]
        for done, info in enumerate(old, start=1):
            self.report.tick("calls", done, len(old))
            try:
                record = read_record(self.objects, info.key)
            except StoreError:  # not understood, so not removed (its call reports it)
                continue
            if record is None or record_run(record) in runs_in_flight:
                continue  # gone meanwhile, or its run may still retry the call
            self.report.add("calls")
            if not self.dry_run:
                self.objects.delete(info.key)


def _sweep_leases(
    registry: LeaseRegistry, written_before: float, live_holders: Collection[str], dry_run: bool
) -> list[Lease]:
    stale = registry.stale(written_before, live_holders)
    if dry_run:
        return stale
    return [
        lease
        for lease in stale
        if registry.drop_stale(lease.sandbox_id, written_before, live_holders)
    ]
