"""``FunctionTool`` and ``@tool``: a tool made from a typed function."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from pydantic import BaseModel, create_model

from rath.errors import ConfigError
from rath.tools.base import FlowToolCall, check_tool
from rath.tools.context import current_tool_call

KEY_PARAMETER = "idempotency_key"
"""A ``@tool`` function parameter of this name receives the call's idempotency key."""


class FunctionTool(FlowToolCall):
    """A tool made from a typed function by :func:`tool` (arguments validated by pydantic)."""

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parallel_safe: bool = False,
        retry_safe: bool = False,
    ) -> None:
        self.function = function
        self.name = name or function.__name__
        self.description = description or inspect.getdoc(function) or None
        self.parallel_safe = parallel_safe
        self.takes_key = KEY_PARAMETER in inspect.signature(function).parameters
        # A function that takes the key can make its own effect idempotent with it.
        self.retry_safe = retry_safe or self.takes_key
        self.model = _arguments_model(function, self.name)
        schema = self.model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        self.parameters = schema

    async def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        """Validate ``arguments`` and call the function (a sync one on a thread)."""
        values = self.model.model_validate(dict(arguments))
        kwargs = {field: getattr(values, field) for field in type(values).model_fields}
        if self.takes_key:
            call = current_tool_call()
            kwargs[KEY_PARAMETER] = call.idempotency_key if call is not None else None
        if inspect.iscoroutinefunction(self.function):
            return await self.function(**kwargs)
        return await asyncio.to_thread(self.function, **kwargs)

    def __repr__(self) -> str:
        return f"FunctionTool({self.name!r})"


def tool(
    function: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    parallel_safe: bool = False,
    retry_safe: bool = False,
) -> Any:
    """Make a tool from a typed function; its schema comes from the type hints.

    ``@tool`` or ``@tool(name=..., parallel_safe=True, retry_safe=True)``. The docstring is
    the description. Every parameter needs a type hint; ones with defaults are optional. A
    parameter named ``idempotency_key`` is not shown to the model: it receives the call's
    key (the same on every attempt), and makes the tool retry-safe (see
    :class:`FlowToolCall`).

    Example:
        @tool(parallel_safe=True)
        def add(a: int, b: int) -> int:
            "Add two integers."
            return a + b
    """

    def build(fn: Callable[..., Any]) -> FunctionTool:
        made = FunctionTool(
            fn,
            name=name,
            description=description,
            parallel_safe=parallel_safe,
            retry_safe=retry_safe,
        )
        check_tool(made)
        return made

    return build(function) if function is not None else build


def _arguments_model(function: Callable[..., Any], name: str) -> type[BaseModel]:
    hints = get_type_hints(function)
    fields: dict[str, Any] = {}
    for param in inspect.signature(function).parameters.values():
        if param.name == KEY_PARAMETER:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigError(f"tool {name!r}: *args and **kwargs cannot become a schema")
        if param.name not in hints:
            raise ConfigError(f"tool {name!r}: parameter {param.name!r} needs a type hint")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints[param.name], default)
    return create_model(f"{name}_arguments", **fields)
