"""Turns on the machine for xdist workers: a test marked ``last`` runs with the cores to itself.

Every test takes a shared turn; a ``last`` test takes the whole machine: the other workers
finish the test they are in and wait until it is done. Two ``flock`` files do it (a readers'
and writer's lock with a gate, so a writer is not starved by readers that keep coming):

- a shared turn passes the gate (shared, at once released), then holds the room shared;
- a whole turn holds the gate exclusively (no one new gets in), then the room exclusively
  (the tests already in finish first).

The 1,000-agent fan-out needs it: its forward's first workflow task makes every agent call,
and on cores shared with three other workers it outlasted the SDK's 2 s deadlock detector
(which can leave the run unevictable and the test hanging until its timeout). Every wait is
bounded by the timeouts of the tests it waits for: a test killed by its timeout, or its
worker's exit, lets go of its locks.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK_DIR_ENV = "RATH_TEST_TURNS_DIR"
_made: list[str] = []  # the directory this process made (the first process, once)


def share_with_workers() -> None:
    """In pytest's first process: the locks' directory, for the xdist workers it starts."""
    if LOCK_DIR_ENV not in os.environ:
        _made.append(tempfile.mkdtemp(prefix="rath-test-turns-"))
        os.environ[LOCK_DIR_ENV] = _made[0]


def remove_after_workers() -> None:
    """In pytest's first process, once its workers are gone: remove the locks' directory."""
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)


@contextlib.contextmanager
def turn(*, whole_machine: bool) -> Iterator[None]:
    """Hold a turn (the whole machine, or a share of it) for the duration of the block."""
    directory = Path(os.environ.get(LOCK_DIR_ENV) or tempfile.gettempdir())
    with open(directory / "gate", "a+b") as gate, open(directory / "room", "a+b") as room:
        if whole_machine:
            fcntl.flock(gate, fcntl.LOCK_EX)
            fcntl.flock(room, fcntl.LOCK_EX)
        else:
            fcntl.flock(gate, fcntl.LOCK_SH)
            fcntl.flock(gate, fcntl.LOCK_UN)
            fcntl.flock(room, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(room, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)
