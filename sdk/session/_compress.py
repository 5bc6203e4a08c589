"""``run_session_compress``: replace a transcript with one summary row, by an LLM activity.

OpenRath's compression (one tool-less call, the reply becomes the only USER row), durable: in a
durable ``forward`` it is an activity of the parent run; from plain Python a small
``rath.Compress`` workflow runs that activity. Either way the result is lazy.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

from rath._ids import new_id
from rath._runtime.launch import start_compress
from rath.errors import ConfigError
from rath.llm._provider import Provider
from rath.session._calls import CompressJob, slug
from rath.session._graph_mode import stamped
from rath.session._lineage import LineageKind
from rath.session._registry import register_run
from rath.session._session import Session
from rath.workflows._scope import current_scope

COMPRESS_EXTRAS = (("compression.lossy", True), ("compression.rows_out", 1))


def run_session_compress(
    user_session: Session,
    agent_session: Session,
    *,
    agent_provider: Provider,
    compress_instruction: str | None = None,
    agent_name: str = "compressor",
    executor: Any = None,
) -> Session:
    """Compress ``user_session`` into one USER row written by the model.

    Args:
        user_session: The transcript to compress.
        agent_session: Rows sent before it (OpenRath: the compressor's prompt).
        agent_provider: Which model writes the summary.
        compress_instruction: The final user instruction (OpenRath's default text if None).
        agent_name: Names the run or activity in the Temporal UI.
        executor: OpenRath's loop executor: its ``complete`` writes the summary instead of
            the provider (called in this process; see ``run_session_loop``). Not inside a
            durable ``forward``.

    Returns:
        A lazy session with one USER row; parents ``(user.id, agent.id)``, kind
        ``op_session_compress``, extras ``compression.lossy`` and ``compression.rows_out``.
    """
    out = Session(
        id=new_id(),
        sandbox=user_session.sandbox,
        **stamped(
            parent_session_ids=(user_session.id, agent_session.id),
            lineage_kind=LineageKind.OP_SESSION_COMPRESS,
            lineage_operator="run_session_compress",
            lineage_extras=COMPRESS_EXTRAS,
        ),
    )
    job = CompressJob(
        user=user_session,
        agent=agent_session,
        provider=agent_provider,
        instruction=compress_instruction,
        name=slug(agent_name),
        out=out,
        inputs=(user_session, agent_session),
        executor=executor,
    )
    if workflow.in_workflow():
        if executor is not None:
            raise ConfigError(
                "executor= calls an object of the calling process, which a durable forward "
                "cannot reach: give the compressor a provider"
            )
        current_scope().start_compress(job)
    else:
        start_compress(job)
        register_run(user_session, agent_session, out)
    return out
