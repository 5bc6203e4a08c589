"""``CompressWorkflow``: one compress activity, for a client's compression. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from rath.contracts.llm import COMPRESS, CompressArgs, CompressResult
    from rath.contracts.runs import COMPRESS_RUN, CompressInput
    from rath.llm.chat_response import add_usage
    from rath.session.session import Session
    from rath.session.table_ref import TableRef

COMPRESS_TIMEOUT = timedelta(minutes=10)


@workflow.defn(name=COMPRESS_RUN.name, sandboxed=False)
class CompressWorkflow:
    """Replace a transcript with one USER summary row (OpenRath's ``run_session_compress``)."""

    @workflow.run
    async def run(self, input: CompressInput) -> Session:
        """Run the compression activity and return the output session."""
        result = await execute_compress(input.args)
        return compressed(input.output, result)


async def execute_compress(args: CompressArgs) -> CompressResult:
    """Workflow code: run ``rath.llm.compress`` with its timeouts and retry policy."""
    return await COMPRESS.execute(
        args,
        task_queue=args.executor.queue if args.executor is not None else None,
        start_to_close_timeout=COMPRESS_TIMEOUT,
        retry_policy=RetryPolicy(
            initial_interval=timedelta(seconds=args.provider.retry_base_seconds or 1.0),
            maximum_attempts=args.provider.retry_max_attempts or 6,
            non_retryable_error_types=["ConfigError", "CompressError"],
        ),
        summary=f"{args.agent_name} · compress · {args.provider.label()}",
    )


def compressed(shell: Session, result: CompressResult) -> Session:
    """The output session: ``shell``'s lineage and usage, the single summary row, its usage."""
    return shell.model_copy(
        update={
            "table": TableRef(rows=(result.row,)),
            "usage": add_usage(shell.usage, result.usage),
        }
    )
