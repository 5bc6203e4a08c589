"""The backend registry's functions, at OpenRath's module path."""

from __future__ import annotations

from rath.backend._registry import (
    current,
    get,
    get_class,
    is_available,
    list_names,
    preferred,
    register,
    set_default,
)

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
