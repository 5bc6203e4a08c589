"""The memory backend registry: names to classes, one instance per name, a default.

``"local"`` is registered and made the default when :mod:`rath.memory` is imported;
``"openviking"`` is registered too, and available when its extra is installed. Unlike
OpenRath, :func:`get` returns the same instance every time, as the sandbox plane does, so
``store_count`` counts every store of a backend in the process.
"""

from __future__ import annotations

from rath._registry import NamedRegistry
from rath.memory._errors import MemoryBackendNotFound
from rath.memory.abc import MemoryBackend

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

_registry: NamedRegistry[MemoryBackend] = NamedRegistry("memory backend", MemoryBackendNotFound)

register = _registry.register
list_names = _registry.list_names
get_class = _registry.get_class
get = _registry.get
is_available = _registry.is_available
preferred = _registry.preferred
set_default = _registry.set_default
current = _registry.current
