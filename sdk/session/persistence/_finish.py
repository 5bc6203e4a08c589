"""Completing a ``persist=True`` run's session file once the run ends."""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any

from rath._runtime.launch import RunHandle
from rath.session._session import Session
from rath.session.persistence._writer import SessionWriter
from rath.store import current_store


def persist_when_done(out: Session, writer: SessionWriter) -> None:
    """When ``out``'s run ends, write its rows and the trailer (or leave the partial file)."""
    pending = out._pending
    if not isinstance(pending, RunHandle):
        writer.abandon()
        raise TypeError("persist_when_done needs the lazy output of a run")

    def done(future: concurrent.futures.Future[Any]) -> None:
        # Off the runtime's loop thread (this callback runs there): store reads, file writes.
        threading.Thread(target=_finish, args=(future, writer), name="rath-persist").start()

    pending.add_done_callback(done)


def _finish(future: concurrent.futures.Future[Any], writer: SessionWriter) -> None:
    if future.exception() is not None:
        writer.abandon()  # the partial file stays: the crash marker
        return
    result: Session = future.result()
    try:
        rows = result._rows if result._rows is not None else current_store().load_rows(result.table)
        for index, row in enumerate(rows):
            writer.write_chunk(index, row)
    except BaseException:
        writer.abandon()
        raise
    writer.close(result.usage)
