"""Helpers for tests on both model wires: a fake server per wire, a provider for it, and what
history says about LLM calls."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.json_format import MessageToDict
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory
from temporalio.service import RPCError, RPCStatusCode

from rath.flow import Provider
from rath.llm.aio import async_chat_client_for
from rath.llm.chat_request import RathLLMChatRequest, request_from_openai
from rath.llm.chat_response import RathLLMChatResponse, RathLLMTokenUsage
from rath.llm.pool import named_calls
from rath.testing import FakeAnthropicServer, FakeChatServer, FakeServer, Handler, Reply

WIRES = ("openai", "anthropic")
MODELS = {"openai": "fake-model", "anthropic": "claude-fake"}
TEST_KEY = "test-key-0123456789"
HELLO = request_from_openai([{"role": "user", "content": "hello"}])


@dataclass(frozen=True)
class Call:
    """A tool call as the durable loop reads it."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Answer:
    """What the durable loop reads of an answer (ids named for its round)."""

    content: str | None
    tool_calls: tuple[Call, ...]
    finish_reason: str
    usage: RathLLMTokenUsage | None
    model: str


def answer_of(response: RathLLMChatResponse, round_index: int = 1) -> Answer:
    """The loop's view of ``response`` in round ``round_index``."""
    choice = named_calls(response, round_index).primary_choice
    calls = tuple(
        Call(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or ()
    )
    return Answer(
        choice.message.content, calls, choice.finish_reason, response.usage, response.model
    )


def complete(provider: Provider, request: RathLLMChatRequest = HELLO) -> Answer:
    """One call through a new client for ``provider``, closed after it."""

    async def run() -> RathLLMChatResponse:
        client = async_chat_client_for(provider)
        try:
            return await client.acomplete(request)
        finally:
            await client.aclose()

    return answer_of(asyncio.run(run()))


def fake_server(wire: str, handler: Handler | Sequence[Reply], *, port: int = 0) -> FakeServer:
    """A not yet started fake server speaking ``wire``."""
    cls = FakeAnthropicServer if wire == "anthropic" else FakeChatServer
    return cls(handler, port=port, model=MODELS[wire])


def provider_for(wire: str, base_url: str, **fields: Any) -> Provider:
    """A provider of kind ``wire`` pointed at ``base_url`` (the key is a test value)."""
    fields.setdefault("api_key", TEST_KEY)
    return Provider(provider_kind=wire, model=MODELS[wire], base_url=base_url, **fields)


@dataclass(frozen=True)
class LLMCall:
    """One ``rath.llm.complete`` activity as history records it."""

    attempt: int
    last_failure_type: str | None
    last_failure_message: str
    last_failure_delay: float | None
    scheduled_at: float
    started_at: float
    failed_type: str | None
    failed_message: str | None
    non_retryable: bool

    @property
    def wait_before_last_attempt(self) -> float:
        """Seconds from scheduling to the start of the attempt history recorded (the last)."""
        return self.started_at - self.scheduled_at


def llm_calls(history: WorkflowHistory) -> list[LLMCall]:
    """Every ``rath.llm.complete`` activity of a run, in order."""
    scheduled: dict[int, float] = {}
    started: dict[int, Any] = {}
    failed: dict[int, Any] = {}
    for event in history.events:
        when = event.event_time.ToMicroseconds() / 1e6
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == "rath.llm.complete":
                scheduled[event.event_id] = when
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            attrs = event.activity_task_started_event_attributes
            started[attrs.scheduled_event_id] = (attrs, when)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
            attrs = event.activity_task_failed_event_attributes
            failed[attrs.scheduled_event_id] = attrs.failure
    calls = []
    for event_id, at in scheduled.items():
        attrs, started_at = started[event_id]
        info = attrs.last_failure.application_failure_info
        delay = (
            info.next_retry_delay.ToMicroseconds() / 1e6
            if info.HasField("next_retry_delay")
            else None
        )
        failure = failed.get(event_id)
        calls.append(
            LLMCall(
                attempt=attrs.attempt,
                last_failure_type=info.type or None,
                last_failure_message=attrs.last_failure.message,
                last_failure_delay=delay,
                scheduled_at=at,
                started_at=started_at,
                failed_type=failure.application_failure_info.type if failure else None,
                failed_message=failure.message if failure else None,
                non_retryable=bool(failure and failure.application_failure_info.non_retryable),
            )
        )
    return calls


def history_text(history: WorkflowHistory) -> str:
    """The whole history as JSON text (payloads decoded), to search for leaked secrets."""
    events = [MessageToDict(event) for event in history.events]
    text = json.dumps(events)
    for event in events:
        for payload in _payloads(event):
            text += _decode(payload)
    return text


async def wait_for_failed_attempt(
    client: Client, workflow_id: str, error_type: str, timeout: float = 30.0
) -> None:
    """Poll the run until its pending LLM activity has failed once with ``error_type``."""
    handle = client.get_workflow_handle(workflow_id)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            description = await handle.describe()
        except RPCError as exc:  # a lazy run may not have started yet
            if exc.status != RPCStatusCode.NOT_FOUND:
                raise
            await asyncio.sleep(0.05)
            continue
        for pending in description.raw_description.pending_activities:
            failure = pending.last_failure.application_failure_info.type
            if pending.activity_type.name == "rath.llm.complete" and failure == error_type:
                return
        await asyncio.sleep(0.05)
    raise TimeoutError(f"no {error_type} attempt on {workflow_id} within {timeout}s")


def _payloads(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if "data" in node and "metadata" in node:
            found.append(node)
        for value in node.values():
            found.extend(_payloads(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_payloads(value))
    return found


def _decode(payload: dict[str, Any]) -> str:
    import base64

    try:
        return base64.b64decode(payload["data"]).decode("utf-8", "replace")
    except (ValueError, TypeError):
        return ""
