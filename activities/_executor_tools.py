"""Tool calls through a loop executor: ``executor.dispatch_tool(session, tool, arguments)``.

OpenRath hands every tool call to the loop's executor, with the tool object; the default one
just calls it. Here the executor is the caller's (``run_session_loop(executor=...)``) and the
tool is the registered user tool, or, for a built-in, :class:`SandboxTool`, which runs the call
in the session's pooled sandbox like ``rath.tools.run`` does.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from rath.tools.base import FlowToolCall
from rath.tools.builtins import BUILTIN_TOOLS


class SandboxTool(FlowToolCall):
    """A built-in tool as the object an executor is given; calling it runs the built-in.

    OpenRath's built-in tools are synchronous, so a call from a thread blocks until the
    sandbox answers; called on the worker's event loop (an async executor), it returns the
    awaitable instead.

    Args:
        name: The built-in's name.
        run: Runs the call in the sandbox; the result body (JSON).
        loop: The worker's event loop, where ``run`` must run.
    """

    def __init__(
        self,
        name: str,
        run: Callable[[Mapping[str, Any]], Awaitable[str]],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        built = BUILTIN_TOOLS[name]
        self.name = built.name
        self.description = built.description
        self.parameters = built.parameters
        self.parallel_safe = built.parallel_safe
        self.retry_safe = True  # as in ``rath.tools.run``: shell commands get the call's key
        self._resource_key = built.lane_key
        self._run = run
        self._loop = loop

    def resource_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """The built-in's own lane."""
        return tuple(self._resource_key(arguments))

    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        """Run the call; its result as a value (the body parsed)."""
        result = self._parsed(arguments)
        if _running_loop() is self._loop:
            return result
        return asyncio.run_coroutine_threadsafe(result, self._loop).result()

    async def _parsed(self, arguments: Mapping[str, Any]) -> Any:
        return json.loads(await self._run(arguments))


class Dispatched(FlowToolCall):
    """``tool`` as the executor dispatches it (what ``run_tool_call`` runs)."""

    def __init__(self, executor: Any, tool: FlowToolCall) -> None:
        self.name = tool.name
        self.description = tool.description
        self.parameters = tool.parameters
        self.retry_safe = tool.retry_safe
        self._executor = executor
        self._tool = tool

    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        """``adispatch_tool`` when the executor is async, else ``dispatch_tool`` (on a thread)."""
        adispatch = getattr(self._executor, "adispatch_tool", None)
        if adispatch is not None and inspect.iscoroutinefunction(adispatch):
            return adispatch(session, self._tool, dict(arguments))
        return self._executor.dispatch_tool(session, self._tool, dict(arguments))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
