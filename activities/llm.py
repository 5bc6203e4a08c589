"""The LLM activity: one chat completion per session-loop round.

The workflow sends references (the agent's and the user's transcripts as :class:`TableRef`),
never the rows; this activity rebuilds the messages from the chunk store, calls the model
through the official ``openai`` SDK (its own retries off: Temporal owns retries), stores the
assistant row, and returns what the workflow needs to dispatch tools: names, ids, resource keys
and whether the arguments parse. The tool arguments themselves stay in the store.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import timedelta
from typing import Any

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ConfigDict
from temporalio import activity
from temporalio.exceptions import ApplicationError

from rath._runtime.credentials import CredentialVault
from rath._text import preview
from rath.activities._boundary import activity_errors
from rath.activities._heartbeat import heartbeating
from rath.demo import DEMO_MODEL, demo_base_url
from rath.llm._http import error_message, retry_after_seconds
from rath.llm._provider import ProviderSpec
from rath.llm._usage import TokenUsage
from rath.llm._wire import (
    Completion,
    WireToolCall,
    build_request,
    normalize_completion,
    parse_arguments,
)
from rath.session._chunks import (
    ChunkRow,
    assistant_turn_chunk,
    chunk_table_to_messages,
    user_text_chunk,
)
from rath.session._table_ref import TableRef
from rath.store import ChunkStore
from rath.tools.builtins import BUILTIN_TOOLS, tool_schemas

PREVIEW_CHARS = 160
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


class CompleteArgs(BaseModel):
    """Input of :meth:`LLMActivities.complete`: references only, no transcript bytes."""

    model_config = ConfigDict(frozen=True)

    agent_name: str
    provider: ProviderSpec
    system: TableRef
    transcript: TableRef
    tool_names: tuple[str, ...]
    round: int


class ToolCallPlan(BaseModel):
    """What the workflow needs to dispatch one tool call (not its arguments)."""

    model_config = ConfigDict(frozen=True)

    index: int
    id: str
    name: str
    arguments_error: str | None
    resource_key: tuple[str, ...]
    preview: str


class CompleteResult(BaseModel):
    """Output of :meth:`LLMActivities.complete`."""

    model_config = ConfigDict(frozen=True)

    transcript: str
    assistant: str
    tool_calls: tuple[ToolCallPlan, ...]
    finish_reason: str
    usage: TokenUsage | None
    model: str
    preview: str
    context_tokens: int = 0


DEFAULT_COMPRESS_INSTRUCTION = (
    "The messages above are a conversation transcript (system/agent context followed by "
    "user-visible turns). Compress them into a shorter narrative that preserves facts, user "
    "goals, and open tasks. Output plain text only, suitable as the sole replacement "
    "user-side transcript - no role labels."
)


class CompressArgs(BaseModel):
    """Input of :meth:`LLMActivities.compress`: references only."""

    model_config = ConfigDict(frozen=True)

    agent_name: str
    provider: ProviderSpec
    system: TableRef
    transcript: TableRef
    instruction: str | None = None


class CompressResult(BaseModel):
    """Output of :meth:`LLMActivities.compress`: the summary USER row, by digest."""

    model_config = ConfigDict(frozen=True)

    row: str
    usage: TokenUsage | None
    preview: str


class LLMActivities:
    """LLM activities, bound to a chunk store and a credential vault at worker start."""

    def __init__(self, store: ChunkStore, vault: CredentialVault) -> None:
        self._store = store
        self._vault = vault
        self._clients: dict[tuple[str | None, str, float], openai.AsyncOpenAI] = {}

    @activity.defn(name="rath.llm.complete")
    async def complete(self, args: CompleteArgs) -> CompleteResult:
        """Run one chat completion for a session-loop round."""
        with activity_errors():
            system_rows, transcript_rows, sealed = await asyncio.to_thread(self._load, args)
            messages = chunk_table_to_messages(system_rows + transcript_rows)
            tools = tool_schemas(args.tool_names)
            client, model = self._client_for(args.provider)
            options = dict(args.provider.options)
            request = build_request(messages, tools, model=model, options=options)
        async with heartbeating():
            completion = await self._create(client, request, args.provider)
        result = normalize_completion(completion, round_index=args.round)
        return await asyncio.to_thread(self._record, result, sealed, messages)

    @activity.defn(name="rath.llm.compress")
    async def compress(self, args: CompressArgs) -> CompressResult:
        """One tool-less completion that replaces a transcript with a single USER summary."""
        with activity_errors():
            system = await asyncio.to_thread(self._store.load_rows, args.system)
            rows = await asyncio.to_thread(self._store.load_rows, args.transcript)
            messages = chunk_table_to_messages(system + rows)
            messages.append(
                {"role": "user", "content": args.instruction or DEFAULT_COMPRESS_INSTRUCTION}
            )
        text, usage = await self.chat_text(
            args.provider,
            messages,
            purpose=f"compression by {args.agent_name!r}",
            wanted="a summary",
        )
        row = user_text_chunk(text).stamped(time.time())
        digest = await asyncio.to_thread(self._store.put_row, row)
        return CompressResult(row=digest, usage=usage, preview=preview(text, PREVIEW_CHARS))

    async def chat_text(
        self,
        provider: ProviderSpec,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        wanted: str = "text",
    ) -> tuple[str, TokenUsage | None]:
        """One tool-less completion, for activities that want text back (call it from one).

        Raises:
            ApplicationError: Non-retryable ``CompressError`` when the model answers with tool
                calls or nothing; the provider's errors as :meth:`complete` classifies them.
        """
        client, model = self._client_for(provider)
        options = {k: v for k, v in provider.options.items() if k != "tool_choice"}
        request = build_request(messages, [], model=model, options=options)
        async with heartbeating():
            completion = await self._create(client, request, provider)
        result = normalize_completion(completion, round_index=1)
        text = (result.content or "").strip()
        if result.tool_calls or not text:
            raise ApplicationError(
                f"{purpose} got "
                f"{'tool calls' if result.tool_calls else 'an empty reply'} instead of {wanted}",
                type="CompressError",
                non_retryable=True,
            )
        return text, result.usage

    def _load(self, args: CompleteArgs) -> tuple[tuple[Any, ...], tuple[Any, ...], str]:
        sealed = self._store.seal(args.transcript)
        system = self._store.load_rows(args.system)
        return system, self._store.load_rows(TableRef.sealed(sealed)), sealed

    def _record(
        self, result: Completion, sealed: str, messages: list[dict[str, Any]]
    ) -> CompleteResult:
        row = assistant_turn_chunk(
            content=result.content, tool_calls=[call.as_wire() for call in result.tool_calls]
        ).stamped(time.time())
        return CompleteResult(
            transcript=sealed,
            assistant=self._store.put_row(row),
            tool_calls=tuple(_plan(index, call) for index, call in enumerate(result.tool_calls)),
            finish_reason=result.finish_reason,
            usage=result.usage,
            model=result.model,
            preview=preview(result.content or "", PREVIEW_CHARS),
            context_tokens=_context_tokens(result, messages, row),
        )

    def _client_for(self, spec: ProviderSpec) -> tuple[openai.AsyncOpenAI, str]:
        if spec.kind == "demo":
            base_url: str | None = demo_base_url()
            key: str | None = "rath-demo-not-a-secret"
            model = spec.model or DEMO_MODEL
        else:
            base_url = spec.base_url or os.environ.get("OPENAI_BASE_URL") or None
            key = self._vault.resolve(spec.api_key_ref, default_env="OPENAI_API_KEY")
            model = spec.model or os.environ.get("OPENAI_DEFAULT_MODEL") or ""
        if not model:
            raise ApplicationError(
                "no model: set Provider(model=...) or OPENAI_DEFAULT_MODEL on the worker",
                type="ConfigError",
                non_retryable=True,
            )
        if key is None:
            if base_url is None:
                raise ApplicationError(
                    "no API key for OpenAI: set OPENAI_API_KEY in the worker's environment "
                    "(or Provider(api_key_env='NAME')), or point Provider(base_url=...) at an "
                    "OpenAI-compatible server",
                    type="ConfigError",
                    non_retryable=True,
                )
            key = "unused"  # local OpenAI-compatible servers ignore the key, the SDK wants one
        timeout = spec.request_timeout or 600.0
        cache_key = (base_url, key, timeout)
        client = self._clients.get(cache_key)
        if client is None:
            client = openai.AsyncOpenAI(
                api_key=key, base_url=base_url, max_retries=0, timeout=timeout
            )
            self._clients[cache_key] = client
        return client, model

    async def _create(
        self, client: openai.AsyncOpenAI, request: dict[str, Any], spec: ProviderSpec
    ) -> Any:
        where = spec.base_url or ("demo model" if spec.kind == "demo" else "OpenAI")
        try:
            # The messages and tools are already in wire form: post them as they are. The
            # typed `chat.completions.create` would re-walk them (milliseconds per call) for
            # the same request, errors and parsed ChatCompletion.
            return await client.post("/chat/completions", body=request, cast_to=ChatCompletion)
        except openai.APIStatusError as exc:
            status = exc.status_code
            message = self._vault.redact(error_message(exc))
            text = f"{where} answered HTTP {status} for model {request['model']!r}: {message}"
            if status in _RETRYABLE_STATUS or status >= 500:
                raise ApplicationError(
                    text, type=f"LLMHTTP{status}", next_retry_delay=_delay(exc.response)
                ) from None
            raise ApplicationError(text, type=f"LLMHTTP{status}", non_retryable=True) from None
        except openai.APITimeoutError:
            raise ApplicationError(f"{where} timed out", type="LLMTimeout") from None
        except openai.APIConnectionError as exc:
            raise ApplicationError(
                f"cannot reach {where}: {self._vault.redact(str(exc.__cause__ or exc))}",
                type="LLMConnectionError",
            ) from None
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise ApplicationError(
                f"{where} sent a malformed response: {type(exc).__name__}", type="LLMBadResponse"
            ) from None


def _plan(index: int, call: WireToolCall) -> ToolCallPlan:
    arguments, error = parse_arguments(call.arguments)
    tool = BUILTIN_TOOLS.get(call.name)
    if arguments is not None and tool is not None:
        key = tool.resource_key(arguments)
    else:
        key = ("call", str(index))
    return ToolCallPlan(
        index=index,
        id=call.id,
        name=call.name,
        arguments_error=error,
        resource_key=key,
        preview=preview(call.arguments, 120),
    )


def _context_tokens(result: Completion, messages: list[dict[str, Any]], reply: ChunkRow) -> int:
    """Tokens of the transcript after this reply: the model's count, else about 4 chars each."""
    if result.usage is not None and result.usage.total_tokens:
        return result.usage.total_tokens
    chars = len(json.dumps(messages, ensure_ascii=False)) + len(reply.canonical_json())
    return chars // 4


def _delay(response: Any) -> timedelta | None:
    seconds = retry_after_seconds(response)
    return None if seconds is None else timedelta(seconds=seconds)
