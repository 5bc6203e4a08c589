"""Test helpers shared by several test modules (importable because of pytest's pythonpath)."""

from __future__ import annotations

import json
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory

from rath.contracts import LoopOptions
from rath.flow import Provider
from rath.session import ChunkKind, Session
from rath.testing import FakeChatServer

FAST = LoopOptions(llm_retry_base_seconds=0.1, llm_heartbeat_seconds=5, tool_heartbeat_seconds=5)


def fake_provider(server: FakeChatServer, **fields: Any) -> Provider:
    """A provider pointed at ``server`` (the key is a test value, not a secret)."""
    return Provider(model="fake-model", base_url=server.base_url, api_key="test-key", **fields)


def tool_bodies(session: Session) -> list[dict[str, Any]]:
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
