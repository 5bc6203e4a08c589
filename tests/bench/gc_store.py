"""G1: listing 10,000 catalog records, and collecting a directory store of 100,000 objects.

Run: ``.venv/bin/python tests/bench/gc_store.py [--sessions 10000] [--garbage 3000]``

Builds a synthetic store in a temporary directory: ``--sessions`` catalogued sessions of one
node and six rows each, and ``--garbage`` uncatalogued ones of one node and nine rows (with the
defaults, 70,000 + 30,000 = 100,000 objects), every object two hours old. Then it times
``Catalog.records()`` (read and sort every record), a dry-run collection, and a real one (which
moves the 30,000 unreferenced objects to the trash). No Temporal: the engine alone, with no
runs in flight. Results are recorded in ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

from rath.session.chunk import canonical_json
from rath.store import Catalog, SessionRecord
from rath.store.gc import collect_garbage
from rath.store.objects import DirectoryStore

OLD = time.time() - 7200


def _put(root: Path, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()
    path = root / digest[:2] / digest[2:]
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (OLD, OLD))
    return digest


def _session(root: Path, tag: str, rows: int) -> str:
    digests = [
        _put(root, canonical_json({"kind": "user", "payload": {"content": f"{tag} row {n}"}}))
        for n in range(rows)
    ]
    return _put(root, canonical_json({"parts": [], "rows": digests}))


def build(root: Path, sessions: int, garbage: int) -> None:
    """The synthetic store (see the module docstring)."""
    catalog = Catalog(DirectoryStore(root))
    for _ in range(sessions):
        sid = uuid.uuid4()
        node = _session(root, str(sid), 6)
        catalog.put(SessionRecord(id=sid, root=node, status="completed", agent="bench"))
    for n in range(garbage):
        _session(root, f"garbage {n}", 9)


def main() -> None:
    """Build, time, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--garbage", type=int, default=3_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="rath-bench-gc-"))
    try:
        started = time.perf_counter()
        build(root, args.sessions, args.garbage)
        objects = DirectoryStore(root)
        total = sum(1 for _ in objects.list())
        print(f"built {total} objects in {time.perf_counter() - started:.1f} s")

        started = time.perf_counter()
        records = Catalog(objects).records()
        print(f"G1a list {len(records)} catalog records: {time.perf_counter() - started:.2f} s")

        dry = collect_garbage(objects, dry_run=True)
        print(
            f"G1b dry-run gc of {dry.objects} chunks ({dry.sessions} sessions): "
            f"{dry.seconds:.2f} s, {dry.trashed} would go"
        )
        real = collect_garbage(objects)
        print(
            f"G1c gc of {real.objects} chunks: {real.seconds:.2f} s, "
            f"{real.trashed} moved to the trash ({real.trashed_bytes} bytes), {real.live} live"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
