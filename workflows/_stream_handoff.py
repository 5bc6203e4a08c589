"""Handing a run's stream on through its end and continue-as-new. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, TypeAdapter
from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream, WorkflowStreamState

RELEASE_TIMEOUT = timedelta(seconds=30)

CARRY_BYTES = 512_000
"""The most encoded event bytes a stream carries across continue-as-new."""

InputT = TypeVar("InputT", bound=BaseModel)
_STATE = TypeAdapter(WorkflowStreamState)


def restored(state: dict[str, Any] | None) -> WorkflowStreamState | None:
    """The stream state a run's input carries (``SessionLoopInput.stream_state``), decoded."""
    return None if state is None else _STATE.validate_python(state)


def carried(state: WorkflowStreamState, limit: int = CARRY_BYTES) -> WorkflowStreamState:
    """``state`` with only its newest events that fit in ``limit`` bytes (offsets kept)."""
    size, keep = 0, len(state.log)
    while keep > 0 and size + len(state.log[keep - 1].data) <= limit:
        keep -= 1
        size += len(state.log[keep].data)
    dropped = keep
    if not dropped:
        return state
    return WorkflowStreamState(
        log=state.log[dropped:],
        base_offset=state.base_offset + dropped,
        publishers=state.publishers,
    )


async def continue_as_new_streaming(stream: WorkflowStream, next_input: InputT) -> NoReturn:
    """Hand the stream to the next run: release followers, then continue as new."""
    await stream.continue_as_new(
        lambda state: [
            next_input.model_copy(
                update={"stream_state": _STATE.dump_python(carried(state), mode="json")}
            )
        ]
    )


async def release_followers(stream: WorkflowStream) -> None:
    """Answer the followers' waiting polls before the run ends; they then read the rest."""
    stream.detach_pollers()
    try:
        # Bounded: a follower whose poll never returns must not keep the run from ending;
        # followers read what is left from the closed run anyway.
        await workflow.wait_condition(workflow.all_handlers_finished, timeout=RELEASE_TIMEOUT)
    except TimeoutError:
        workflow.logger.warning("stream followers still polling after %s; ending", RELEASE_TIMEOUT)
