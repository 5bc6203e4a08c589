"""Loop executors (``run_session_loop(executor=...)``) as the worker sees them.

An executor lives in the starting process; its calls go to that process's task queue, where
the activities find it here by id (:class:`~rath.contracts.llm.ExecutorRef`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import uuid
from collections.abc import Callable
from typing import Any

from rath.errors import ConfigError
from rath.llm._wire import durable_usage
from rath.llm.base import AsyncChatClient
from rath.llm.chat_request import RathLLMChatRequest, RathLLMFunctionTool
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.errors import ProviderError
from rath.llm.provider import Provider, ProviderSpec, provider_from_spec


class LocalExecutors:
    """The executors of this process's runs, by id (thread-safe)."""

    def __init__(self) -> None:
        self._by_id: dict[str, Any] = {}
        self._lock = threading.Lock()

    def add(self, executor: Any) -> str:
        """Keep ``executor`` for a run; its id."""
        key = uuid.uuid4().hex
        with self._lock:
            self._by_id[key] = executor
        return key

    def get(self, key: str) -> Any:
        """The executor ``key`` names.

        Raises:
            ConfigError: It is not in this process (the process that started the run ended).
        """
        with self._lock:
            executor = self._by_id.get(key)
        if executor is None:
            raise ConfigError(
                f"loop executor {key} is not in this process: the process that started the "
                "run with executor= has ended, and the run cannot go on without it; start "
                "the run again"
            )
        return executor

    def discard(self, key: str) -> None:
        """Forget the executor of a run that ended."""
        with self._lock:
            self._by_id.pop(key, None)


EXECUTORS = LocalExecutors()
"""The process's loop executors."""


class ExecutorChatClient:
    """A loop executor, or OpenRath's synchronous chat client, as Rath's async client.

    ``acomplete`` (else ``complete``, on a thread) answers; a non-empty ``tool_schemas()``
    replaces the tools offered (OpenRath's rule). Its own failures are final: a scripted
    executor asked again would answer the next question.
    """

    def __init__(self, executor: Any, provider: ProviderSpec, *, kind: str = "executor") -> None:
        self._executor = executor
        self._provider = provider
        self.kind = kind

    @property
    def model(self) -> str:
        """The provider's model (the executor may ignore it)."""
        return self._provider.model or ""

    async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """Ask the executor (the provider's model and sampling fields in the request)."""
        name = type(self._executor).__name__
        try:
            offered = getattr(self._executor, "tool_schemas", None)
            schemas = tuple(offered() or ()) if offered is not None else ()
            req = self._request(req, schemas)
            acomplete = getattr(self._executor, "acomplete", None)
            if acomplete is not None:
                response = await acomplete(req)
            else:
                response = await asyncio.to_thread(self._executor.complete, req)
        except (ProviderError, ConfigError):
            raise
        except Exception as exc:
            raise ProviderError(
                f"{self.kind} client {name} failed: {type(exc).__name__}: {exc}",
                error_type="LoopExecutorError",
                retryable=False,
            ) from exc
        if not isinstance(response, RathLLMChatResponse):
            raise ProviderError(
                f"{self.kind} client {name} returned {type(response).__name__}; complete() "
                "must return a rath.llm.RathLLMChatResponse",
                error_type="LoopExecutorError",
                retryable=False,
            )
        return dataclasses.replace(response, usage=durable_usage(response.usage))

    def _request(
        self, req: RathLLMChatRequest, schemas: tuple[RathLLMFunctionTool, ...]
    ) -> RathLLMChatRequest:
        tools = schemas or req.tools
        return dataclasses.replace(
            req,
            model=req.model or self._provider.model,
            tools=tools or None,
            tool_choice=req.tool_choice or ("auto" if tools else None),
        )

    async def aclose(self) -> None:
        """Nothing to release: the executor belongs to the caller."""


def openrath_factory(
    kind: str, factory: Callable[[Provider], Any]
) -> Callable[[ProviderSpec, str | None], AsyncChatClient]:
    """Rath's ``factory(spec, key)`` for OpenRath's ``factory(provider)`` of a sync client."""

    def build(spec: ProviderSpec, key: str | None) -> AsyncChatClient:
        return ExecutorChatClient(factory(provider_of(spec, key)), spec, kind=kind)

    return build


def provider_of(spec: ProviderSpec, key: str | None) -> Provider:
    """The :class:`Provider` a worker rebuilds from a spec, with the key it resolved."""
    rebuilt = provider_from_spec(spec)
    return dataclasses.replace(rebuilt, api_key=key, api_key_ref=None, api_key_env=None)
