"""Test helpers shared by several test modules (importable because of pytest's pythonpath)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter

from rath.contracts.runs import LoopOptions
from rath.flow import Provider
from rath.plugin import RathPlugin
from rath.session import ChunkKind, Session
from rath.settings import Settings

FAST = LoopOptions(llm_retry_base_seconds=0.1, llm_heartbeat_seconds=5, tool_heartbeat_seconds=5)


class Endpoint(Protocol):
    """A fake model server (chat or embeddings) of :mod:`rath.testing`."""

    @property
    def base_url(self) -> str: ...


def fake_provider(
    server: Endpoint, *, model: str = "fake-model", api_key: str | None = "test-key", **fields: Any
) -> Provider:
    """An OpenAI-wire provider pointed at ``server`` (the key is a test value, not a secret).

    Pass ``api_key=None`` for runs on remote workers: a key given here would have to travel to
    them in workflow history, so Rath refuses it (the fake endpoints need none).
    """
    return Provider(model=model, base_url=server.base_url, api_key=api_key, **fields)


async def connect(address: str, settings: Settings | None = None) -> Client:
    """A client of the server at ``address``: with Rath's plugin for ``settings``, or with only
    the pydantic converter when ``settings`` is ``None`` (for tests that register activities
    of their own, which the plugin would register a second time)."""
    if settings is None:
        return await Client.connect(address, data_converter=pydantic_data_converter)
    return await Client.connect(address, plugins=[RathPlugin(settings=settings)])


def tool_bodies(session: Session) -> list[Any]:
    """The parsed JSON bodies of a session's tool results, in transcript order."""
    return [
        json.loads(row.payload["content"]) for row in session.rows_of_kind(ChunkKind.TOOL_RESULT)
    ]


def kinds(session: Session) -> list[str]:
    """The kinds of a session's rows, in order."""
    return [row.kind.value for row in session.chunk_table.rows]


async def history_of(client: Client, workflow_id: str) -> WorkflowHistory:
    """The full history of the latest run of ``workflow_id``."""
    return await client.get_workflow_handle(workflow_id).fetch_history()


def activity_events(history: WorkflowHistory) -> list[tuple[str, int]]:
    """``(event kind, scheduled event id)`` for every activity scheduled/completed, in order."""
    out: list[tuple[str, int]] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            out.append(("scheduled", event.event_id))
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            out.append(
                ("completed", event.activity_task_completed_event_attributes.scheduled_event_id)
            )
    return out
