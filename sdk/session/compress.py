"""``run_session_compress``: replace a transcript with one summary row, by an LLM activity.

The session's host runs it: an activity of a durable ``forward``, or a small ``rath.Compress``
run from plain Python. Either way the result is lazy.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.provider import Provider
from rath.session._graph_mode import stamped
from rath.session._loop import persisting
from rath.session.graph.kind import LineageKind
from rath.session.host import CompressJob, current_host
from rath.session.session import Session
from rath.utils.ids import new_id
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

    Args:
        user_session: The transcript to compress.
        agent_session: Rows sent before it (OpenRath: the compressor's prompt).
        agent_provider: Which model writes the summary.
        compress_instruction: The final user instruction (OpenRath's default text if None).
        agent_name: Names the run or activity in the Temporal UI.
        executor: OpenRath's loop executor: its ``complete`` writes the summary instead of
            the provider (called in this process; see ``run_session_loop``). Not inside a
            durable ``forward``.
        register_sessions: Register the user, agent and output sessions in
            :func:`~rath.session.session_registry` and make the output active (plain Python
            only: a durable ``forward`` has no client registry).
        on_event: Stream the summary: each :class:`~rath.llm.RathLLMStreamDelta` is passed
            to it, in order, on a thread of this process, before the output is ready. The
            call then goes through ``rath.session.loop.StreamingExecutor`` over the
            provider's synchronous client (``chat_client_for``), made now, so it runs in
            this process like any ``executor=``. Not with ``executor`` and not inside a
            durable ``forward``.
        persist: Also write OpenRath's session file (``<RATH_HOME>/sessions/<id>.jsonl``):
            the header now, the summary row and the trailer when the compression ends (a
            failed one leaves the partial file), as ``run_session_loop(persist=True)``.
        persist_path: Write that file here instead (implies ``persist``).
        sandbox_handle_id: The sandbox identity the file's header records; only written
            with ``persist``/``persist_path`` (see ``run_session_loop``).

    Returns:
        The session with one USER row (in plain Python the call waits for it, as OpenRath's;
        inside a durable ``forward`` it is lazy); parents ``(user.id, agent.id)``, kind
        ``op_session_compress``, extras ``compression.lossy`` and ``compression.rows_out``.

    Raises:
        ConfigError: ``on_event`` with ``executor`` (a ``ValueError``), or ``on_event``,
            ``executor`` or ``persist`` inside a durable ``forward``; a provider whose
            synchronous client cannot be built for ``on_event`` (no key: ``ValueError``).
        TypeError: ``on_event`` with a provider whose client cannot stream.
        PersistenceError: ``persist_path`` is taken by another session file; nothing starts.
        RunFailedError: The compression failed (plain Python).
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
