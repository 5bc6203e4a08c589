"""Names a module exports but imports on first use (PEP 562), so importing it stays cheap."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def lazy_names(module: str, table: Mapping[str, str] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports each name of ``table`` from its module once.

    Without ``table``, the names are what the module's ``if TYPE_CHECKING:`` block imports:
    that block is then the one list a type checker and the running code both read.
    """
    namespace = sys.modules[module].__dict__
    sources: dict[str, str] = dict(table) if table is not None else {}

    def __getattr__(name: str) -> Any:
        if table is None and not sources:
            sources.update(type_checking_imports(Path(namespace["__file__"])))
        try:
            source = sources[name]
        except KeyError:
            raise AttributeError(f"module {module!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(source), name)
        namespace[name] = value
        return value

    return __getattr__


def type_checking_imports(path: Path) -> dict[str, str]:
    """Each name the ``if TYPE_CHECKING:`` blocks of ``path`` import, and its module."""
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    for alias in statement.names:
                        found[alias.asname or alias.name] = statement.module
    return found


def lazy_dir(module: str) -> Callable[[], list[str]]:
    """A module ``__dir__``: what it holds and the names it loads on first use (``__all__``)."""
    namespace = sys.modules[module].__dict__

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __dir__
