"""Which ``Workflow`` classes this process's workers may run as durable ``forward`` code.

A worker only runs classes registered with it (``rath worker --workflows pkg.mod:Squad``, or
automatically for the embedded default's in-process worker), never arbitrary import paths
from workflow input.
"""

from __future__ import annotations

import threading

from rath.errors import ConfigError
from rath.utils.targets import import_option
from rath.workflows._module_spec import class_target

_classes: dict[str, type] = {}
_lock = threading.Lock()


def register_workflow_class(cls: type) -> str:
    """Allow workers in this process to run ``cls.forward``; returns its target name."""
    if not (isinstance(cls, type) and getattr(cls, "_rath_workflow", False)):
        raise ConfigError(f"{cls!r} is not a rath.flow.Workflow subclass")
    target = class_target(cls)
    with _lock:
        _classes[target] = cls
    return target


def register_workflow_target(target: str) -> type:
    """Import ``"package.module:ClassName"`` and register it (the worker CLI's ``--workflows``).

    Raises:
        ConfigError: The target is malformed, cannot be imported, or is not a Workflow.
    """
    cls = import_option("--workflows", target, "package.module:ClassName")
    register_workflow_class(cls)
    return cls  # type: ignore[no-any-return]


def registered_workflow_class(target: str) -> type | None:
    """The class registered under ``target``, or ``None``.

    A class a script defined in ``__main__`` matches a worker's registration of the same
    class name from an importable module, when exactly one registered class has that name.
    """
    with _lock:
        found = _classes.get(target)
        module, _, qualname = target.partition(":")
        if found is None and module == "__main__":
            same_name = [cls for key, cls in _classes.items() if key.endswith(f":{qualname}")]
            found = same_name[0] if len(same_name) == 1 else None
        return found


def registered_targets() -> tuple[str, ...]:
    """Every registered target, sorted."""
    with _lock:
        return tuple(sorted(_classes))
