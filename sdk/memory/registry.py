"""The memory backend registry: names to classes, one instance per name, a default.

The built-ins ``"local"`` (the default), ``"openviking"`` (available when its extra is
installed) and ``"sqlite"`` are registered by name and imported on first use. Unlike
OpenRath, :func:`get` returns the same instance every time, as the sandbox plane does, so
``store_count`` counts every store of a backend in the process. :func:`list_names` keeps
registration order, as in OpenRath.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from rath.memory.abc import MemoryBackend
from rath.memory.errors import MemoryBackendNotFound
from rath.utils.registry import NamedRegistry

__all__ = [
    "current",
    "get",
    "get_class",
    "is_available",
    "list_names",
    "preferred",
    "register",
    "set_default",
]

_B = TypeVar("_B", bound=MemoryBackend)

_registry: NamedRegistry[MemoryBackend] = NamedRegistry("memory backend", MemoryBackendNotFound)
_order: list[str] = []
_order_lock = threading.Lock()
for _name, _target in {
    "local": "rath.memory.adapters.local:LocalMemoryBackend",
    "openviking": "rath.memory.adapters.openviking:OpenVikingBackend",
    "sqlite": "rath.memory.adapters.sqlite:SqliteMemoryBackend",
}.items():
    _registry.register_target(_name, _target)
    _order.append(_name)

get_class = _registry.get_class
get = _registry.get
is_available = _registry.is_available
preferred = _registry.preferred
set_default = _registry.set_default
current = _registry.current

set_default("local")


def register(name: str) -> Callable[[type[_B]], type[_B]]:
    """Class decorator: register a :class:`MemoryBackend` under ``name`` (and set its ``name``).

    Raises:
        ValueError: ``name`` is taken.
    """

    def add(cls: type[_B]) -> type[_B]:
        _registry.register(name)(cls)
        with _order_lock:
            if name not in _order:
                _order.append(name)
        return cls

    return add


def list_names() -> list[str]:
    """The registered names, in registration order."""
    with _order_lock:
        return list(_order)
