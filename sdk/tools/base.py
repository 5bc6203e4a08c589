"""``FlowToolCall``, OpenRath's tool base class, and how one user tool call runs."""

from __future__ import annotations

import asyncio
import inspect
import re
from abc import ABCMeta, abstractmethod
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from rath.backend import ToolExecutionFailure
from rath.errors import ConfigError
from rath.tools.bodies import error_body, exception_body, result_body
from rath.tools.schema import check_object

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_REQUIRED_MEMBERS = ("name", "parameters")


class _ToolMeta(ABCMeta):
    """Makes ``name`` and ``parameters`` abstract members that an instance may set itself.

    As with an ABC, a tool without them cannot be made (``TypeError``); unlike an ABC's
    abstract property, a class attribute, a property or an attribute set in ``__init__``
    all count, so the check runs once ``__init__`` has.
    """

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        made = super().__call__(*args, **kwargs)
        missing = [member for member in _REQUIRED_MEMBERS if not hasattr(made, member)]
        if missing:
            names = ", ".join(repr(member) for member in missing)
            raise TypeError(
                f"Can't instantiate abstract class {cls.__name__} without an implementation "
                f"for abstract members {names}"
            )
        return made


class FlowToolCall(metaclass=_ToolMeta):
    """A tool the model can call (OpenRath's base class).

    Subclasses set ``name`` and ``parameters`` (a JSON Schema object), optionally
    ``description``, ``parallel_safe``, ``retry_safe`` and ``resource_key``, and define
    ``__call__``, which may be sync or async and returns any JSON-able value (or a pydantic
    model). As in OpenRath these three are abstract: a tool lacking one cannot be made
    (``TypeError``); ``name`` and ``parameters`` may be class attributes, properties or
    attributes set in ``__init__``.

    A call runs at most once by default: when the worker running it dies mid-call, the model
    gets a ``tool_outcome_unknown`` error carrying the call's idempotency key instead of a
    second run. Set ``retry_safe = True`` for a tool whose repeated run does no harm (it
    reads only, or passes :func:`~rath.tools.current_tool_call`'s key to what it changes);
    it is then run again, with the same key.

    Example:
        class Calculator(FlowToolCall):
            name = "calculator"
            description = "Evaluate arithmetic."
            parameters = {"type": "object", "properties": {"expression": {"type": "string"}},
                          "required": ["expression"]}
            parallel_safe = True

            def __call__(self, session, arguments):
                return {"result": evaluate(arguments["expression"])}
    """

    name: str
    """The name the model calls (letters, digits, ``_`` and ``-``; at most 64)."""
    parameters: Mapping[str, Any]
    """The JSON Schema of the arguments (``type: object``)."""
    description: str | None = None
    parallel_safe: bool = False
    retry_safe: bool = False
    """Whether a call cut off by a dead worker may run again (with the same idempotency key)."""

    def resource_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """The resource a call uses; calls with equal keys never overlap.

        ``("safe", name)`` when parallel-safe (calls of this tool serialize, other tools
        overlap), else ``("global",)``.
        """
        return ("safe", self.name) if self.parallel_safe else ("global",)

    def lane_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """The key the durable loop schedules a call by (``resource_key`` but for built-ins)."""
        return self.resource_key(arguments)

    @abstractmethod
    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        """Run the call; ``session`` is the transcript so far (with its sandbox placement)."""

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI wire tool dict."""
        function: dict[str, Any] = {"name": self.name, "parameters": dict(self.parameters)}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}


async def run_tool_call(
    tool: FlowToolCall, session: Any, arguments: Mapping[str, Any]
) -> tuple[str, bool]:
    """Run one call of a user tool: its result body (JSON) and whether it succeeded.

    Never raises for the call's own problems: bad arguments, the tool's exceptions and
    results that are not JSON become error bodies for the model.
    """
    problem = check_object(tool.parameters, arguments)
    if problem is not None:
        return error_body("invalid_tool_arguments", problem), False
    try:
        if inspect.iscoroutinefunction(type(tool).__call__):
            value = await tool(session, arguments)
        else:
            # On a thread: on the worker's loop a slow synchronous tool would stop heartbeats
            # and every other activity of the worker until it returned.
            value = await asyncio.to_thread(tool, session, arguments)
        if inspect.isawaitable(value):
            value = await value
    except ValidationError as exc:
        return error_body("invalid_tool_arguments", _first_error(exc)), False
    except Exception as exc:
        return exception_body(exc), False
    # A backend failure value is the tool's own report of a failed call.
    return result_body(value), not isinstance(value, ToolExecutionFailure)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    return f"argument {where!r}: {error['msg']}"


def check_tool(candidate: object) -> FlowToolCall:
    """``candidate`` as a tool instance (a class is instantiated), with a valid name and schema.

    Raises:
        ConfigError: Not a tool, a bad name, or parameters that are not an object schema.
    """
    made = (
        candidate()
        if isinstance(candidate, type) and issubclass(candidate, FlowToolCall)
        else candidate
    )
    if not isinstance(made, FlowToolCall):
        raise ConfigError(
            f"{candidate!r} is not a tool: pass a FlowToolCall (class or instance), a function "
            "decorated with @rath.tools.tool, or MCP tools (rath.tools.mcp)"
        )
    if not isinstance(getattr(made, "name", None), str) or not _NAME.match(made.name):
        raise ConfigError(
            f"tool name {getattr(made, 'name', None)!r} of {type(made).__name__} must be 1-64 "
            "letters, digits, '_' or '-' (the model APIs accept no other)"
        )
    parameters = getattr(made, "parameters", None)
    if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
        raise ConfigError(f"tool {made.name!r}: parameters must be a JSON Schema with type object")
    return made
