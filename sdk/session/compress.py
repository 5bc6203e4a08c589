"""``run_session_compress``: a transcript replaced by one LLM summary row. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.provider import Provider
from rath.session._graph_mode import stamped_output
from rath.session._loop import persisting
from rath.session.graph.kind import LineageKind
from rath.session.host import CompressJob, current_host
from rath.session.session import Session
from rath.utils.in_workflow import in_workflow

COMPRESS_EXTRAS = (("compression.lossy", True), ("compression.rows_out", 1))


def run_session_compress(
    user_session: Session,
    agent_session: Session,
    *,
    agent_provider: Provider,
    compress_instruction: str | None = None,
    agent_name: str = "compressor",
    executor: Any = None,
    register_sessions: bool = True,
    on_event: Callable[[RathLLMStreamDelta], None] | None = None,
    persist: bool = False,
    persist_path: Path | None = None,
    sandbox_handle_id: str | None = None,
) -> Session:
    """Compress ``user_session`` into one USER row written by the model.

    Raises:
        ConfigError: ``on_event`` with ``executor`` (a ``ValueError``), or ``on_event``,
            ``executor`` or ``persist`` inside a durable ``forward``; a provider whose
            synchronous client cannot be built for ``on_event`` (no key: ``ValueError``).
        TypeError: ``on_event`` with a provider whose client cannot stream.
        PersistenceError: ``persist_path`` is taken by another session file; nothing starts.
        RunFailedError: The compression failed (plain Python).
    """
    out = stamped_output(
        Session,
        user_session,
        agent_session,
        LineageKind.OP_SESSION_COMPRESS,
        "run_session_compress",
        extras=COMPRESS_EXTRAS,
    )
    job = CompressJob(
        user=user_session,
        agent=agent_session,
        provider=agent_provider,
        instruction=compress_instruction,
        name=agent_name,
        out=out,
        inputs=(user_session, agent_session),
        executor=executor,
        on_event=on_event,
        persist=persisting(persist, persist_path, sandbox_handle_id),
        register=register_sessions,
    )
    current_host().compress(job)
    return out if in_workflow() else out.synchronize()  # synchronous in plain Python, as OpenRath's
