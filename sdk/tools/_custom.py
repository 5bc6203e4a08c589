"""User tools: ``FlowToolCall`` subclasses and the ``@tool`` decorator that builds one.

A tool runs as an activity on a worker that registered it (:func:`register_tool`; the embedded
default registers an agent's tools itself, ``rath worker --tools mod:name`` a separate worker).
Workflows only see names and schemas: the worker's copy is what runs.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from pydantic import BaseModel, ValidationError, create_model

from rath.backend import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileWriteResult,
    ToolExecutionFailure,
    ToolResult,
)
from rath.errors import ConfigError, ToolNameConflictError
from rath.tools.bodies import dumps, error_body
from rath.tools.builtins import BUILTIN_TOOLS
from rath.tools.context import current_tool_call
from rath.tools.schema import check_object
from rath.utils import decode_subprocess_output
from rath.utils.targets import import_option

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
KEY_PARAMETER = "idempotency_key"
"""A ``@tool`` function parameter of this name receives the call's idempotency key."""


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

    @abstractmethod
    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        """Run the call; ``session`` is the transcript so far (with its sandbox placement)."""

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI wire tool dict."""
        function: dict[str, Any] = {"name": self.name, "parameters": dict(self.parameters)}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}


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


MAX_BODY_CHARS = 64 * 1024


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
        kind = type(exc).__name__
        return error_body("tool_execution_exception", f"{kind}: {exc}", kind), False
    # A backend failure value is the tool's own report of a failed call.
    return result_body(value), not isinstance(value, ToolExecutionFailure)


def result_body(value: Any) -> str:
    r"""A tool's return value as the transcript carries it: OpenRath's JSON rendering.

    A backend failure (``ToolExecutionFailure``) is the error body
    ``{"ok": false, "error_kind", "message"[, "detail"]}``; a ``bool`` is ``{"ok": ...}``;
    a backend ``ToolResult`` is the built-in tools' body (see :func:`backend_result_body`).
    Pydantic models are dumped; anything else goes through ``json.dumps`` (non-JSON values as
    their ``str``), so ``42`` is ``42`` and ``"ok"`` is ``"\"ok\""``; a value that still
    cannot be written is ``{"repr": ..., "type": ...}``. Past :data:`MAX_BODY_CHARS` the text
    is cut.
    """
    if isinstance(value, ToolExecutionFailure):
        return error_body(value.kind, value.message, value.detail or None)
    if isinstance(value, bool):
        return dumps({"ok": value})
    if isinstance(value, ToolResult):
        body = dumps(backend_result_body(value))
    else:
        if isinstance(value, BaseModel):
            value = value.model_dump(mode="json")
        try:
            body = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):  # circular, or NaN handling refused
            body = dumps({"repr": repr(value)[:MAX_BODY_CHARS], "type": type(value).__name__})
    if len(body) > MAX_BODY_CHARS:
        body = body[:MAX_BODY_CHARS] + "...(truncated)"
    return body


MAX_FILE_CHARS = 12_000
"""OpenRath's cut of a ``FileContent`` body's text."""
MAX_ENTRIES = 500
"""OpenRath's cut of a ``FileEntries`` body's list."""


def backend_result_body(result: ToolResult) -> dict[str, Any]:
    """A :mod:`rath.backend` result as OpenRath's tool body (output bytes decoded).

    ``CommandResult``: ``{"exit_code", "stdout", "stderr", "elapsed_ms"}``; ``FileContent``:
    ``{"data"}`` (cut at 12,000 characters); ``FileEntries``: ``{"entries": [{"name", "path",
    "is_dir"}, ...]}`` (the first 500); ``FileWriteResult``: ``{"bytes_written"}``;
    ``CodeResult``: ``{"text", "stdout", "stderr", "error"}``; another result:
    ``{"type", "note": "unserialised result"}``.
    """
    if isinstance(result, CommandResult):
        return {
            "exit_code": result.exit_code,
            "stdout": _text(result.stdout),
            "stderr": _text(result.stderr),
            "elapsed_ms": result.elapsed_ms,
        }
    if isinstance(result, FileContent):
        text = _text(result.data)
        cut = text[:MAX_FILE_CHARS] + "...(truncated)" if len(text) > MAX_FILE_CHARS else text
        return {"data": cut}
    if isinstance(result, FileEntries):
        entries = result.entries[:MAX_ENTRIES]
        return {"entries": [{"name": e.name, "path": e.path, "is_dir": e.is_dir} for e in entries]}
    if isinstance(result, FileWriteResult):
        return {"bytes_written": result.bytes_written}
    if isinstance(result, CodeResult):
        return {
            "text": result.text,
            "stdout": _text(result.stdout),
            "stderr": _text(result.stderr),
            "error": result.error,
        }
    return {"type": type(result).__name__, "note": "unserialised result"}


def _text(data: bytes | str) -> str:
    return decode_subprocess_output(data) if isinstance(data, bytes) else str(data)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    return f"argument {where!r}: {error['msg']}"


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


class ToolRegistry:
    """The tools a worker process runs, by name (thread-safe)."""

    def __init__(self) -> None:
        self._tools: dict[str, FlowToolCall] = {}
        self._lock = threading.Lock()

    def register(self, candidate: object) -> FlowToolCall:
        """Add a tool; the same tool again is a no-op.

        Raises:
            ToolNameConflictError: Its name is a built-in's, or another tool's.
        """
        made = check_tool(candidate)
        if made.name in BUILTIN_TOOLS:
            raise ToolNameConflictError(f"user tool {made.name!r} shadows a built-in system tool")
        with self._lock:
            known = self._tools.get(made.name)
            if known is not None and not _same_tool(known, made):
                raise ToolNameConflictError(
                    f"two different tools are named {made.name!r}; rename one"
                )
            self._tools.setdefault(made.name, made)
            return self._tools[made.name]

    def get(self, name: str) -> FlowToolCall | None:
        """The tool named ``name``, if registered."""
        with self._lock:
            return self._tools.get(name)

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted."""
        with self._lock:
            return tuple(sorted(self._tools))


TOOLS = ToolRegistry()
"""This process's registry (what its workers run)."""


def register_tool(candidate: object) -> FlowToolCall:
    """Register a tool with this process's workers (see :class:`ToolRegistry`)."""
    return TOOLS.register(candidate)


def register_tool_target(target: str) -> FlowToolCall:
    """Import ``"package.module:name"`` (a tool or tool class) and register it (``--tools``).

    Raises:
        ConfigError: The target is malformed, cannot be imported, or is not a tool.
    """
    found = import_option("--tools", target, "package.module:name")
    return register_tool(found)


def _same_tool(a: FlowToolCall, b: FlowToolCall) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, FunctionTool) and isinstance(b, FunctionTool):
        return a.function is b.function
    return True


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
