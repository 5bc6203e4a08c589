"""Memory across processes: what one process remembers another recalls; concurrent writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from rath.memory import LocalMemoryStore
from rath.testing.fake_embedder import FakeEmbeddingServer

PROC = Path(__file__).with_name("memory_proc.py")
TIMEOUT = 60.0


def run(home: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(PROC), *args],
        env={**os.environ, "RATH_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def read_line(proc: subprocess.Popen[str]) -> str | None:
    """One line of ``proc``'s stdout, or ``None`` if none came within the timeout."""
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()))  # type: ignore[union-attr]
    reader.start()
    reader.join(TIMEOUT)
    return line[0] if line else None


def test_remember_in_one_process_recall_in_another(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cat, _ = json.loads(
        run(home, "remember", "The user's cat is called Miso.", "The user drinks green tea.")
    )
    hits = json.loads(run(home, "recall", "what is the cat's name?"))
    assert [hit["record"]["uri"] for hit in hits] == [cat["uri"]]
    assert hits[0]["score"] > 0
    assert (home / "memory" / "memory.db").is_file()


def test_hybrid_recall_in_a_new_process_embeds_what_an_earlier_one_wrote(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    run(home, "remember", "The user lives in Lisbon, Portugal.", "The user is allergic to peanuts.")
    with FakeEmbeddingServer() as server:
        hits = json.loads(run(home, "recall", "Lisbn", server.base_url))
    assert hits[0]["record"]["content"] == "The user lives in Lisbon, Portugal."
    assert hits[0]["embedding_score"] > 0 and hits[0]["lexical_score"] is None


def test_concurrent_writers_in_several_processes(tmp_path: Path) -> None:
    db, workers, count = tmp_path / "shared.db", 4, 40
    procs = [
        subprocess.Popen(
            [sys.executable, str(PROC), "write-many", str(db), str(worker), str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(workers)
    ]
    try:
        # Start every writer at once: each says "ready" with its store open, then waits.
        for proc in procs:
            assert read_line(proc) == "ready\n", proc.stderr.read() if proc.poll() else None  # type: ignore[union-attr]
        for proc in procs:
            proc.stdin.write("go\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
        results = [proc.communicate(timeout=TIMEOUT) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=TIMEOUT)
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert "database is locked" not in err
        assert json.loads(out.strip().splitlines()[-1])["done"] == count
    with LocalMemoryStore(db) as store:
        records = store.list()
        own = {r.content for r in records if r.scope == "agent"}
        shared = [r.content for r in records if r.scope == "user"]
    assert own == {f"worker {w} fact number {i}" for w in range(workers) for i in range(count)}
    assert sorted(shared) == sorted(f"shared fact number {i}" for i in range(count))
    assert len(records) == workers * count + count
