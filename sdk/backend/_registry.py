"""The backend registry: names to classes, one instance per name and process, a default."""

from __future__ import annotations

from rath.backend._backend import Backend
from rath.backend._errors import BackendNotFound
from rath.utils.registry import NamedRegistry

_registry: NamedRegistry[Backend] = NamedRegistry("sandbox backend", BackendNotFound)

register = _registry.register
list_names = _registry.list_names
get_class = _registry.get_class
get = _registry.get
is_available = _registry.is_available
preferred = _registry.preferred
set_default = _registry.set_default
current = _registry.current

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
