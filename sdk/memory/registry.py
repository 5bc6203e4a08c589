"""The memory backend registry: names to backends, one instance per name, a default.

The built-ins ``local`` (the default), ``openviking`` and ``sqlite`` load on first use. Unlike
OpenRath, :func:`get` returns the same instance every time, as the sandbox plane does.
"""

from __future__ import annotations

from rath.memory.abc import MemoryBackend
from rath.memory.errors import MemoryBackendNotFound
from rath.utils.registry import NamedRegistry

_r: NamedRegistry[MemoryBackend] = NamedRegistry(
    "memory backend", MemoryBackendNotFound, ordered=True
)
for _name, _class in (
    ("local", "local:LocalMemoryBackend"),
    ("openviking", "openviking:OpenVikingBackend"),
    ("sqlite", "sqlite:SqliteMemoryBackend"),
):
    _r.register_target(_name, f"rath.memory.adapters.{_class}")
register = _r.register
get = _r.get
get_class = _r.get_class
list_names = _r.list_names
is_available = _r.is_available
preferred = _r.preferred
set_default = _r.set_default
current = _r.current

set_default("local")
