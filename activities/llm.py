"""The LLM activities: a completion per loop round, compression, image description, embeddings.

The workflow sends table references; ``complete`` rebuilds the messages, calls the provider's
chat client (streaming when asked) and stores the assistant row. Failures arrive classified
as ``ProviderError`` and leave as ``ApplicationError`` of its type (docs/providers.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta
from typing import Any

from temporalio.exceptions import ApplicationError

from rath.activities._boundary import activity_errors
from rath.activities._heartbeat import heartbeating
from rath.activities._llm_stream import publishing
from rath.contracts.llm import (
    COMPLETE,
    COMPRESS,
    DESCRIBE_IMAGE,
    EMBED,
    REPLY_CHARS,
    CompleteArgs,
    CompleteResult,
    CompressArgs,
    CompressResult,
    DescribeImageArgs,
    DescribeImageResult,
    EmbedArgs,
    EmbedResult,
    ExecutorRef,
    ToolCallPlan,
)
from rath.llm.aio import AsyncChatClient
from rath.llm.chat_request import openrath_tool_list, request_from_openai
from rath.llm.chat_response import RathLLMChatResponse, RathLLMTokenUsage, RathLLMToolCallPart
from rath.llm.credentials import CredentialVault
from rath.llm.embedding import Embedder, EmbeddingError, embedder_for
from rath.llm.errors import ProviderError
from rath.llm.executors import EXECUTORS, ExecutorChatClient
from rath.llm.pool import ChatClients, named_calls, stream_completion
from rath.llm.provider import ProviderSpec
from rath.llm.tool_args import parse_arguments
from rath.llm.vlm import image_message
from rath.session.chunk import (
    ChunkRow,
    assistant_turn_chunk,
    user_text_chunk,
    wire_messages,
)
from rath.session.table_ref import TableRef
from rath.store import ChunkStore
from rath.tools.builtins import BUILTIN_TOOLS, tool_schemas
from rath.tools.registry import TOOLS
from rath.utils.text import preview

PREVIEW_CHARS = 160
MAX_RETRY_AFTER = timedelta(minutes=10)
"""The longest ``Retry-After`` honoured as the next attempt's delay (a day would park a run)."""


def retry_delay(retry_after: float | None) -> timedelta | None:
    """The next attempt's delay for an endpoint's ``Retry-After`` (capped), if it sent one."""
    if retry_after is None:
        return None
    return min(timedelta(seconds=retry_after), MAX_RETRY_AFTER)


DEFAULT_COMPRESS_INSTRUCTION = (
    "The messages above are a conversation transcript (system/agent context followed by "
    "user-visible turns). Compress them into a shorter narrative that preserves facts, user "
    "goals, and open tasks. Output plain text only, suitable as the sole replacement "
    "user-side transcript - no role labels."
)


class LLMActivities:
    """LLM activities, bound to a chunk store and a credential vault at worker start."""

    def __init__(self, store: ChunkStore, vault: CredentialVault) -> None:
        self._store = store
        self._vault = vault
        self._clients = ChatClients(vault)
        self._embedders: dict[str, Embedder] = {}

    async def aclose(self) -> None:
        """Close the pooled chat clients and embedders (they are rebuilt if used again)."""
        await self._clients.aclose()
        embedders, self._embedders = list(self._embedders.values()), {}
        for embedder in embedders:
            close = getattr(embedder, "close", None)
            if close is not None:
                await asyncio.to_thread(close)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Wrap a worker's run; closes the HTTP clients when it stops (a plugin ``run_context``).

        Closed on the worker's own loop: an SDK client left for the garbage collector tries to
        close itself on whatever loop is running then, and fails there.
        """
        try:
            yield
        finally:
            await self.aclose()

    @COMPLETE.implement
    async def complete(self, args: CompleteArgs) -> CompleteResult:
        """Run one chat completion for a session-loop round."""
        with self._errors():
            system_rows, transcript_rows, sealed, extra = await self._store.run_io(self._load, args)
            messages = wire_messages(system_rows + transcript_rows)
            request = request_from_openai(
                messages,
                openrath_tool_list(tool_schemas(args.tool_names) + extra),
                args.provider.options,
            )
            # Heartbeat from here: a cold worker's first client imports its SDK (seconds on
            # a loaded host), which must not outlast the heartbeat timeout unannounced.
            async with heartbeating():
                client = await self._client(args.provider, args.executor)
                if args.stream is None:
                    result = named_calls(await client.acomplete(request), args.round)
                else:
                    async with publishing(
                        args.stream, agent=args.agent_name, round=args.round
                    ) as publisher:
                        result = await stream_completion(
                            client, request, publisher.emit, round_index=args.round
                        )
        rows = len(transcript_rows)
        return await self._store.run_io(self._record, result, sealed, messages, rows)

    @COMPRESS.implement
    async def compress(self, args: CompressArgs) -> CompressResult:
        """One tool-less completion that replaces a transcript with a single USER summary."""
        with activity_errors():
            system = await asyncio.to_thread(self._store.load_rows, args.system)
            rows = await asyncio.to_thread(self._store.load_rows, args.transcript)
            messages = wire_messages(system + rows)
            messages.append(
                {"role": "user", "content": args.instruction or DEFAULT_COMPRESS_INSTRUCTION}
            )
        text, usage = await self.chat_text(
            args.provider,
            messages,
            purpose=f"compression by {args.agent_name!r}",
            wanted="a summary",
            executor=args.executor,
        )
        row = user_text_chunk(text).stamped(time.time())
        digest = await self._store.run_io(self._store.put_row, row)
        return CompressResult(row=digest, usage=usage, preview=preview(text, PREVIEW_CHARS))

    @DESCRIBE_IMAGE.implement
    async def describe_image(self, args: DescribeImageArgs) -> DescribeImageResult:
        """Ask a vision-capable model about one image; its text answer comes back."""
        with activity_errors():
            message = image_message(
                args.prompt, image=args.image, mime=args.mime, url=args.image_url
            )
        text, usage = await self.chat_text(
            args.provider,
            [message],
            purpose=f"image description by {args.agent_name!r}",
            wanted="a description",
            error_type="LLMEmptyReply",
        )
        return DescribeImageResult(text=text, usage=usage)

    @EMBED.implement
    async def embed(self, args: EmbedArgs) -> EmbedResult:
        """Embed texts with the provider's embedding model (``rath.llm.embedder_for``)."""
        with activity_errors():
            key = args.provider.model_dump_json()
            embedder = self._embedders.get(key)
            if embedder is None:
                embedder = self._embedders[key] = embedder_for(args.provider)
        try:
            vectors = await asyncio.to_thread(embedder.embed, list(args.texts), query=args.query)
        except EmbeddingError as exc:
            raise ApplicationError(
                self._vault.redact(str(exc)),
                type="EmbeddingError",
                non_retryable=not exc.retryable,
                next_retry_delay=retry_delay(exc.retry_after),
            ) from None
        return EmbedResult(model=embedder.model, vectors=tuple(tuple(v) for v in vectors))

    async def chat_text(
        self,
        provider: ProviderSpec,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        wanted: str = "text",
        error_type: str = "CompressError",
        executor: ExecutorRef | None = None,
    ) -> tuple[str, RathLLMTokenUsage | None]:
        """One tool-less completion, for activities that want text back (call it from one).

        Raises:
            ApplicationError: Non-retryable ``error_type`` when the model answers with tool
                calls or nothing; the provider's errors as :meth:`complete` classifies them.
        """
        with self._errors():
            options = {k: v for k, v in provider.options.items() if k != "tool_choice"}
            async with heartbeating():
                client = await self._client(provider, executor)
                result = await client.acomplete(request_from_openai(messages, options=options))
        message = result.primary_choice.message
        text = (message.content or "").strip()
        if message.tool_calls or not text:
            raise ApplicationError(
                f"{purpose} got "
                f"{'tool calls' if message.tool_calls else 'an empty reply'} instead of {wanted}",
                type=error_type,
                non_retryable=True,
            )
        return text, result.usage

    async def _client(
        self, provider: ProviderSpec, executor: ExecutorRef | None
    ) -> AsyncChatClient:
        """The pooled client for ``provider``, or the caller's executor when the run has one."""
        if executor is not None:
            return ExecutorChatClient(EXECUTORS.get(executor.id), provider)
        return await self._clients.aclient(provider)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """The activity boundary for model calls: user mistakes and classified failures."""
        with activity_errors():
            try:
                yield
            except ProviderError as exc:
                raise ApplicationError(
                    self._vault.redact(str(exc)),
                    type=exc.error_type,
                    non_retryable=not exc.retryable,
                    next_retry_delay=retry_delay(exc.retry_after),
                ) from None

    def _load(
        self, args: CompleteArgs
    ) -> tuple[tuple[Any, ...], tuple[Any, ...], str, list[dict[str, Any]]]:
        """The store work before the call, in one thread hop: rows, seal, tool schemas."""
        sealed = self._store.seal(args.transcript)
        system = self._store.load_rows(args.system)
        rows = self._store.load_rows(TableRef.sealed(sealed))
        return system, rows, sealed, self._stored_schemas(args.tool_schemas)

    def _stored_schemas(self, digest: str | None) -> list[dict[str, Any]]:
        if digest is None:
            return []
        schemas: list[dict[str, Any]] = json.loads(self._store.get_bytes(digest))
        return schemas

    def _record(
        self, result: RathLLMChatResponse, sealed: str, messages: list[dict[str, Any]], rows: int
    ) -> CompleteResult:
        choice = result.primary_choice
        content, calls = choice.message.content, choice.message.tool_calls or ()
        # The row stores every call as a "function" call, whatever type the client gave it.
        wire = [dataclasses.replace(call, type="function") for call in calls]
        row = assistant_turn_chunk(content=content, tool_calls=wire).stamped(time.time())
        return CompleteResult(
            transcript=sealed,
            assistant=self._store.put_row(row),
            tool_calls=tuple(_plan(index, call) for index, call in enumerate(calls)),
            finish_reason=choice.finish_reason,
            usage=result.usage,
            model=result.model,
            preview=preview(content or "", PREVIEW_CHARS),
            context_tokens=_context_tokens(result, messages, row),
            rows=rows + 1,
            reply="" if calls else preview(content or "", REPLY_CHARS),
        )


def _plan(index: int, call: RathLLMToolCallPart) -> ToolCallPlan:
    name, raw = call.function.name, call.function.arguments
    arguments, error = parse_arguments(raw)
    tool = BUILTIN_TOOLS.get(name) or TOOLS.get(name)
    if arguments is not None and tool is not None:
        key = tool.lane_key(arguments)
    else:
        key = ("call", str(index))
    return ToolCallPlan(
        index=index,
        id=call.id,
        name=name,
        arguments_error=error,
        resource_key=key,
        preview=preview(raw, 120),
    )


def _context_tokens(
    result: RathLLMChatResponse, messages: list[dict[str, Any]], reply: ChunkRow
) -> int:
    """Tokens of the transcript after this reply: the model's count, else about 4 chars each."""
    if result.usage is not None and result.usage.total_tokens:
        return result.usage.total_tokens
    chars = len(json.dumps(messages, ensure_ascii=False)) + len(reply.canonical_json())
    return chars // 4
