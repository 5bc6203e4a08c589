"""The backend registry (OpenRath's functions): names to classes, a default."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rath.backend.errors import BackendNotFound
from rath.utils.registry import NamedRegistry

if TYPE_CHECKING:
    from rath.backend.abc import Backend

_registry: NamedRegistry[Backend] = NamedRegistry("sandbox backend", BackendNotFound)
for _name, _target in {
    "local": "rath.backend.local:LocalBackend",
    "bwrap": "rath.backend.local:BwrapBackend",
    "docker": "rath.backend.local:DockerBackend",
    "opensandbox": "rath.backend.local:OpenSandboxBackend",
}.items():
    _registry.register_target(_name, _target)

_r = _registry
register, list_names, get_class = _r.register, _r.list_names, _r.get_class
get, is_available, preferred = _r.get, _r.is_available, _r.preferred
set_default, current = _r.set_default, _r.current
