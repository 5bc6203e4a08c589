"""The tool-call journal: what each user tool call got to, kept in the store beside the chunks.

A tool activity is retried when its worker dies, and Temporal cannot tell whether the dead
attempt's effect happened. The journal can: an attempt records ``started`` under the call's
idempotency key before the user's function runs, and the stored result row once it returns.
A later attempt that finds ``done`` reuses the result (no second run); one that finds only
``started`` knows an earlier attempt was cut off mid-call. The records are durable because
the store is (the same one every worker and client shares), unlike heartbeat details, which a
worker sends on a timer and may never have sent before it died.

A call's key is ``<workflow id>/<run id>/<activity id>`` (:func:`call_key`). A record is of use
only while its run may still retry the call, so ``rath sessions gc`` removes the old records of
runs no longer in flight (:func:`call_run` names the run).
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from rath.errors import StoreError
from rath.store.objects import ObjectStore

CALLS_PREFIX = "calls/"
"""Key prefix of every journal record."""


class CallRecord(BaseModel):
    """How far a tool call got.

    Attributes:
        key: The call's idempotency key.
        state: ``started`` (an attempt is running, or died running) or ``done``.
        attempt: The attempt that wrote the record.
        result: The digest of the stored result row, once done.
        ok: Whether the call succeeded, once done.
        preview: A short preview of the result, once done.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    state: Literal["started", "done"]
    attempt: int
    result: str | None = None
    ok: bool | None = None
    preview: str | None = None


def call_key(workflow_id: str, run_id: str, activity_id: str) -> str:
    """The idempotency key of one tool call: the activity that runs it, in its run."""
    return f"{workflow_id}/{run_id}/{activity_id}"


def call_run(key: str) -> str:
    """The run a call key belongs to: ``<workflow id>/<run id>``.

    A workflow id may hold ``/``; run and activity ids do not.
    """
    return key.rsplit("/", 1)[0]


def call_record_key(key: str) -> str:
    """The object key of a call's record (the idempotency key hashed: ids have any text)."""
    return CALLS_PREFIX + hashlib.sha256(key.encode()).hexdigest()


class CallJournal:
    """Tool-call records in an object store.

    Args:
        objects: The store the chunks live in.
    """

    def __init__(self, objects: ObjectStore) -> None:
        self._objects = objects

    def begin(self, key: str, attempt: int) -> CallRecord | None:
        """Record that an attempt of ``key`` starts; the record an earlier attempt left, if any.

        None means no earlier attempt got as far as the user's function.
        """
        record = CallRecord(key=key, state="started", attempt=attempt)
        if self._objects.put(call_record_key(key), record.model_dump_json().encode()):
            return None
        earlier = self.get(key)
        if earlier is not None and earlier.state == "started":
            self._objects.put(
                call_record_key(key), record.model_dump_json().encode(), overwrite=True
            )
        return earlier

    def finish(self, key: str, attempt: int, *, result: str, ok: bool, preview: str) -> None:
        """Record that ``key``'s call returned, with its stored result row."""
        record = CallRecord(
            key=key, state="done", attempt=attempt, result=result, ok=ok, preview=preview
        )
        self._objects.put(call_record_key(key), record.model_dump_json().encode(), overwrite=True)

    def get(self, key: str) -> CallRecord | None:
        """The record of ``key``, if any."""
        return read_record(self._objects, call_record_key(key))


def read_record(objects: ObjectStore, name: str) -> CallRecord | None:
    """The record stored under object key ``name``, if any.

    Raises:
        StoreError: The record is not one (the message names the object and the store).
    """
    try:
        data = objects.get(name)
    except FileNotFoundError:
        return None
    try:
        return CallRecord.model_validate(json.loads(data))
    except (ValueError, ValidationError) as exc:
        raise StoreError(
            f"tool-call record {name} in {objects.describe()} is corrupt: {exc}"
        ) from exc
