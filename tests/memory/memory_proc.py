"""A separate process for the memory tests: ``python memory_proc.py COMMAND ...``.

Commands (every result is one JSON line on stdout):

``remember CONTENT...``                remember in the default store (``$RATH_HOME``), in order
``recall QUERY [BASE_URL]``            recall from the default store, hybrid with the fake
                                       embedder at BASE_URL if given
``write-many DB WORKER COUNT``         print ``ready``, wait for a line on stdin, then write
                                       COUNT own memories and COUNT shared ones (the same in
                                       every worker, with the same keys)
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from rath.memory import LocalMemoryStore, MemoryHit, OpenAIEmbedder, default_memory_store


def vars_of(hit: MemoryHit) -> dict[str, object]:
    """The hit's plain fields (its record is a pydantic model, dumped separately)."""
    return {f.name: getattr(hit, f.name) for f in dataclasses.fields(hit) if f.name != "record"}


def main(argv: list[str]) -> None:
    command = argv[1]
    if command == "remember":
        with default_memory_store() as store:
            records = [store.remember(content) for content in argv[2:]]
        print(json.dumps([record.model_dump(mode="json") for record in records]))
    elif command == "recall":
        embedder = OpenAIEmbedder("fake-embedding", base_url=argv[3]) if len(argv) > 3 else None
        with default_memory_store(embedder=embedder) as store:
            hits = store.recall(argv[2], top_k=5)
        rows = [{**vars_of(hit), "record": hit.as_record().model_dump(mode="json")} for hit in hits]
        print(json.dumps(rows))
    elif command == "write-many":
        db, worker, count = Path(argv[2]), int(argv[3]), int(argv[4])
        with LocalMemoryStore(db) as store:
            print("ready", flush=True)
            sys.stdin.readline()
            for i in range(count):
                store.remember(f"worker {worker} fact number {i}", "agent", "facts")
                store.remember(f"shared fact number {i}", "user", "facts", key=f"shared-{i}")
        print(json.dumps({"worker": worker, "done": count}), flush=True)
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv)
