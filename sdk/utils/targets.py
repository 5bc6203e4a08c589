"""Importing ``"package.module:QualName"`` targets (registered workflow classes, tools)."""

from __future__ import annotations

import contextlib
import importlib
import sys
from typing import Any

from rath.errors import ConfigError


def class_target(cls: type) -> str:
    """``"module:QualName"`` for a class (what :func:`import_target` imports back)."""
    return f"{cls.__module__}:{cls.__qualname__}"


def import_target(target: str) -> Any:
    """The object named ``"module:QualName"``."""
    module_name, _, qualname = target.partition(":")
    # Passed through a workflow sandbox; a process without Temporal has no sandbox to pass.
    temporal = sys.modules.get("temporalio.workflow")
    passed = (
        temporal.unsafe.imports_passed_through()
        if temporal is not None
        else contextlib.nullcontext()
    )
    with passed:
        obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def import_option(option: str, target: str, shape: str) -> Any:
    """Import a command-line ``target`` (``"package.module:name"``) for ``option``.

    Raises:
        ConfigError: Malformed, or not importable; the message names ``option`` and ``shape``.
    """
    if ":" not in target:
        raise ConfigError(f"{option} {target!r}: expected {shape!r}")
    try:
        return import_target(target)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{option} {target!r}: cannot import it ({exc})") from exc
