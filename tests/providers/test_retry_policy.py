"""Per-provider retry overrides become the LLM activity's Temporal retry policy."""

from __future__ import annotations

from typing import Any

import pytest
from support import FAST, history_of
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory
from wires import fake_server, llm_calls, provider_for

from rath import flow
from rath.contracts.llm import COMPLETE
from rath.errors import RunFailedError
from rath.session import Session
from rath.settings import Settings
from rath.testing import error_reply, text_reply


async def test_provider_overrides_set_the_policy_and_bound_the_attempts(
    rath_env: Settings, client: Client
) -> None:
    script = [error_reply(503, "busy")] * 3 + [text_reply("never reached")]
    with fake_server("anthropic", script) as server:
        provider = provider_for(
            "anthropic", server.base_url, retry_max_attempts=3, retry_base_seconds=0.25
        )
        out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
        with pytest.raises(RunFailedError, match="HTTP 503"):
            out.synchronize()
        assert len(server.requests) == 3
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    (scheduled,) = _llm_scheduled(history)
    policy = scheduled.retry_policy
    assert policy.maximum_attempts == 3
    assert policy.initial_interval.ToMilliseconds() == 250
    (call,) = llm_calls(history)
    assert (call.attempt, call.failed_type, call.last_failure_type) == (
        3,
        "LLMHTTP503",
        "LLMHTTP503",
    )


async def test_without_overrides_the_loop_options_apply(rath_env: Settings, client: Client) -> None:
    with fake_server("openai", [text_reply("ok")]) as server:
        out = flow.Agent("x", provider=provider_for("openai", server.base_url), options=FAST)(
            Session.from_user_message("go")
        )
        out.synchronize()
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    (scheduled,) = _llm_scheduled(history)
    policy = scheduled.retry_policy
    assert policy.maximum_attempts == FAST.llm_max_attempts
    assert policy.initial_interval.ToMilliseconds() == int(FAST.llm_retry_base_seconds * 1000)


def _llm_scheduled(history: WorkflowHistory) -> list[Any]:
    """The LLM calls' scheduled events (the run's catalog records are activities too)."""
    return [
        event.activity_task_scheduled_event_attributes
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == COMPLETE.name
    ]


def test_a_retry_after_of_a_day_is_capped() -> None:
    from datetime import timedelta

    from rath.activities.llm import MAX_RETRY_AFTER, retry_delay

    assert retry_delay(None) is None
    assert retry_delay(7) == timedelta(seconds=7)
    assert retry_delay(86_400) == MAX_RETRY_AFTER == timedelta(minutes=10)
