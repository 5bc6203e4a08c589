"""Completing a ``persist=True`` run's session file once the run ends. See docs/modules.md."""

from __future__ import annotations

import asyncio
from typing import Any

from rath.runtime.follow import FollowedRun
from rath.runtime.runtime import get_runtime
from rath.session.host import Persist
from rath.session.persistence.writer import SessionWriter
from rath.session.session import Session
from rath.store import current_store


def writer_for(out: Session, persist: Persist | None) -> SessionWriter | None:
    """The session file writer of ``out`` (its header written now), if asked for."""
    if persist is None:
        return None
    return SessionWriter(out, sandbox_handle_id=persist.sandbox_handle_id, path=persist.path)


def persist_when_done(out: Session, writer: SessionWriter) -> None:
    """When ``out``'s run ends, write its rows and the trailer (or leave the partial file)."""
    run: Any = out._pending
    if run is None or not hasattr(run, "wait"):
        writer.abandon()
        raise TypeError("persist_when_done needs the lazy output of a run")

    async def finish() -> None:
        await run.wait()
        # Off the runtime's loop: store reads and file writes.
        await asyncio.to_thread(_finish, run, writer)

    runtime = get_runtime()
    written = runtime.submit(finish())
    runtime.track(run.run_id, written)
    out.attach_pending(FollowedRun(run, written, what="writing its session file"))


def _finish(run: Any, writer: SessionWriter) -> None:
    try:
        result: Session = run.result()  # done already: this only reads the outcome
    except Exception:
        writer.abandon()  # the partial file stays: the crash marker
        return
    try:
        rows = result._rows if result._rows is not None else current_store().load_rows(result.table)
        for index, row in enumerate(rows):
            writer.write_chunk(index, row)
    except BaseException:
        writer.abandon()
        raise
    writer.close(result.usage)
