"""The tool-call journal: how far each user tool call got, in the store. See docs/modules.md."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict

from rath.store.objects import ObjectStore, read_model

CALLS_PREFIX = "calls/"
"""Key prefix of every journal record."""


class CallRecord(BaseModel):
    """How far a tool call got."""

    model_config = ConfigDict(frozen=True)

    key: str
    state: Literal["started", "done"]
    attempt: int
    result: str | None = None
    ok: bool | None = None
    preview: str | None = None
    call: str | None = None
    run: str | None = None


class CallMade(BaseModel):
    """Which call a record is about, and by which run (both optional)."""

    model_config = ConfigDict(frozen=True)

    call: str | None = None
    run: str | None = None


def call_key(workflow_id: str, run_id: str, activity_id: str) -> str:
    """The idempotency key of one tool call: the activity that runs it, in its run."""
    return f"{workflow_id}/{run_id}/{activity_id}"


def call_run(key: str) -> str:
    """The run a call key belongs to: ``<workflow id>/<run id>``."""
    return key.rsplit("/", 1)[0]


def record_run(record: CallRecord) -> str:
    """The run that keeps ``record`` of use: the one that wrote it, else the key's."""
    return record.run or call_run(record.key)


def call_record_key(key: str) -> str:
    """The object key of a call's record (the idempotency key hashed: ids have any text)."""
    return CALLS_PREFIX + hashlib.sha256(key.encode()).hexdigest()


class CallJournal:
    """Tool-call records in an object store."""

    def __init__(self, objects: ObjectStore) -> None:
        self._objects = objects

    def begin(self, key: str, attempt: int, made: CallMade | None = None) -> CallRecord | None:
        """Record that an attempt of ``key`` starts; the record an earlier attempt left, if any."""
        made = made or CallMade()
        record = CallRecord(key=key, state="started", attempt=attempt, **made.model_dump())
        if self._objects.put(call_record_key(key), record.model_dump_json().encode()):
            return None
        earlier = self.get(key)
        other_call = earlier is not None and None not in (earlier.call, made.call)
        if earlier is not None and other_call and earlier.call != made.call:
            self._put(record)
            return None
        if earlier is not None and earlier.state == "started":
            self._put(record)
        elif earlier is not None and made.run is not None and earlier.run != made.run:
            self._put(earlier.model_copy(update={"run": made.run}))  # now this run's record
        return earlier

    def finish(
        self,
        key: str,
        attempt: int,
        *,
        result: str,
        ok: bool,
        preview: str,
        made: CallMade | None = None,
    ) -> None:
        """Record that ``key``'s call returned, with its stored result row."""
        made = made or CallMade()
        self._put(
            CallRecord(
                key=key,
                state="done",
                attempt=attempt,
                result=result,
                ok=ok,
                preview=preview,
                **made.model_dump(),
            )
        )

    def _put(self, record: CallRecord) -> None:
        self._objects.put(
            call_record_key(record.key), record.model_dump_json().encode(), overwrite=True
        )

    def get(self, key: str) -> CallRecord | None:
        """The record of ``key``, if any."""
        return read_record(self._objects, call_record_key(key))


def read_record(objects: ObjectStore, name: str) -> CallRecord | None:
    """The record stored under object key ``name``, if any.

    Raises:
        StoreError: The record is not one (the message names the object and the store).
    """
    return read_model(objects, name, CallRecord, "tool-call record")
