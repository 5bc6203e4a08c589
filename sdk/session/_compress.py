"""``run_session_compress``: replace a transcript with one summary row, by an LLM activity.

OpenRath's compression (one tool-less call, the reply becomes the only USER row), durable: in a
durable ``forward`` it is an activity of the parent run; from plain Python a small
``rath.Compress`` workflow runs that activity. Either way the result is lazy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from temporalio import workflow

from rath._ids import new_id
from rath.llm._provider import Provider, ProviderSpec
from rath.llm._usage import add_usage
from rath.session._lineage import LineageKind
from rath.session._loop import slug
from rath.session._session import Session

if TYPE_CHECKING:
    from rath.activities.llm import CompressArgs

COMPRESS_EXTRAS = (("compression.lossy", True), ("compression.rows_out", 1))


def run_session_compress(
    user_session: Session,
    agent_session: Session,
    *,
    agent_provider: Provider,
    compress_instruction: str | None = None,
    agent_name: str = "compressor",
) -> Session:
    """Compress ``user_session`` into one USER row written by the model.

    Args:
        user_session: The transcript to compress.
        agent_session: Rows sent before it (OpenRath: the compressor's prompt).
        agent_provider: Which model writes the summary.
        compress_instruction: The final user instruction (OpenRath's default text if None).
        agent_name: Names the run or activity in the Temporal UI.

    Returns:
        A lazy session with one USER row; parents ``(user.id, agent.id)``, kind
        ``op_session_compress``, extras ``compression.lossy`` and ``compression.rows_out``.
    """
    out = Session(
        id=new_id(),
        parent_session_ids=(user_session.id, agent_session.id),
        lineage_kind=LineageKind.OP_SESSION_COMPRESS,
        lineage_operator="run_session_compress",
        lineage_extras=COMPRESS_EXTRAS,
        sandbox=user_session.sandbox,
    )
    start_compress(
        user_session,
        agent_session,
        provider=agent_provider,
        instruction=compress_instruction,
        name=agent_name,
        out=out,
        inputs=(user_session, agent_session),
    )
    return out


def start_compress(
    user: Session,
    agent: Session,
    *,
    provider: Provider,
    instruction: str | None,
    name: str,
    out: Session,
    inputs: tuple[Session, ...],
    usage_from: tuple[Session, ...] = (),
) -> None:
    """Make ``out`` (its lineage already set) the lazy result of compressing ``user``.

    Args:
        user: The transcript to compress.
        agent: Rows sent before it.
        provider: Which model writes the summary.
        instruction: The final user instruction (OpenRath's default text if None).
        name: Names the run or activity in the Temporal UI.
        out: The output session, with its id and lineage.
        inputs: The sessions ``out`` is made from, for the lineage graph (and what a client
            waits for before it starts the run).
        usage_from: Sessions whose usage ``out`` carries on top of the compression's own.
    """
    job = _Job(
        user=user,
        agent=agent,
        provider=provider,
        instruction=instruction,
        name=slug(name),
        out=out,
        inputs=inputs,
        usage_from=usage_from,
    )
    (_compress_in_workflow if workflow.in_workflow() else _compress_from_client)(job)


@dataclass(frozen=True, slots=True)
class _Job:
    """One compression to start: what :func:`start_compress` was given."""

    user: Session
    agent: Session
    provider: Provider
    instruction: str | None
    name: str
    out: Session
    inputs: tuple[Session, ...]
    usage_from: tuple[Session, ...]

    @property
    def run_id(self) -> str:
        return f"rath-{self.name}-{self.out.id.hex[:12]}"

    def args(self, spec: ProviderSpec) -> CompressArgs:
        """The activity input (the inputs must be ready)."""
        from rath.activities.llm import CompressArgs

        return CompressArgs(
            agent_name=self.name,
            provider=spec,
            system=self.agent.synchronize().table,
            transcript=self.user.synchronize().table,
            instruction=self.instruction,
        )

    def shell(self) -> Session:
        """``out`` carrying the summed usage of ``usage_from`` (which must be ready)."""
        usage = None
        for source in self.usage_from:
            usage = add_usage(usage, source.usage)
        return self.out.model_copy(update={"usage": usage})


def _compress_from_client(job: _Job) -> None:
    from rath._runtime.providers import provider_spec
    from rath._runtime.runtime import start_lazy_run
    from rath.settings import Settings
    from rath.workflows.compress import CompressInput

    settings = Settings.from_env()
    spec = provider_spec(job.provider, settings)
    start_lazy_run(
        job.out,
        workflow="rath.Compress",
        run_id=job.run_id,
        agent=job.name,
        inputs=job.inputs,
        make_input=lambda: CompressInput(args=job.args(spec), output=job.shell()),
        static_summary=f"{job.name} · compress · session {job.out.id.hex[:8]}",
        settings=settings,
    )


def _compress_in_workflow(job: _Job) -> None:
    from rath._runtime.providers import spec_from_provider
    from rath._runtime.scope import current_scope
    from rath.workflows.compress import compressed, execute_compress

    scope = current_scope()
    spec = spec_from_provider(job.provider, demo_fallback=scope.demo_fallback)

    async def run() -> Session:
        await job.user.ready()
        await job.agent.ready()
        result = await execute_compress(job.args(spec))
        scope.add_usage(result.usage)
        return compressed(job.shell(), result)

    job.out.attach_pending(scope.spawn(job.run_id, run()))
    scope.record(job.out, agent=job.name, inputs=job.inputs)
