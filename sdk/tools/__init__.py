"""Tools the model can call; the six built-ins live in :mod:`rath.tools.builtins`."""

from rath.tools.builtins import (
    BUILTIN_TOOLS,
    BuiltinTool,
    ToolOutcome,
    error_body,
    run_builtin,
    tool_schemas,
    validate_arguments,
)

__all__ = [
    "BUILTIN_TOOLS",
    "BuiltinTool",
    "ToolOutcome",
    "error_body",
    "run_builtin",
    "tool_schemas",
    "validate_arguments",
]
