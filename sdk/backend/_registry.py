"""The backend registry: names to classes, one instance per name and process, a default."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from rath.backend._backend import Backend
from rath.backend._errors import BackendNotFound

_lock = threading.Lock()
_classes: dict[str, type[Backend]] = {}
_instances: dict[str, Backend] = {}
_default: list[str] = []


def register(name: str) -> Callable[[type[Backend]], type[Backend]]:
    """Class decorator: register a backend under ``name`` (and set its ``name``).

    Raises:
        ValueError: ``name`` is taken.
    """

    def add(cls: type[Backend]) -> type[Backend]:
        with _lock:
            if name in _classes:
                raise ValueError(f"a sandbox backend named {name!r} is already registered")
            cls.name = name
            _classes[name] = cls
        return cls

    return add


def list_names() -> list[str]:
    """The registered names, sorted."""
    with _lock:
        return sorted(_classes)


def get_class(name: str) -> type[Backend]:
    """The class registered as ``name``.

    Raises:
        BackendNotFound: No such name.
    """
    with _lock:
        cls = _classes.get(name)
    if cls is None:
        raise BackendNotFound(name, list_names())
    return cls


def get(name: str) -> Backend:
    """The process's one instance of backend ``name``.

    Raises:
        BackendNotFound: No such name.
    """
    cls = get_class(name)
    with _lock:
        if name not in _instances:
            _instances[name] = cls()
        return _instances[name]


def is_available(name: str) -> bool:
    """Whether ``name`` is registered and can run here."""
    with _lock:
        cls = _classes.get(name)
    return cls is not None and cls.is_available()


def preferred(names: Iterable[str]) -> Backend:
    """The first of ``names`` that is available.

    Raises:
        BackendNotFound: None is.
    """
    names = list(names)
    for name in names:
        if is_available(name):
            return get(name)
    raise BackendNotFound(" or ".join(names) or "(none asked)", list_names())


def set_default(name: str) -> None:
    """Make ``name`` what :func:`current` returns.

    Raises:
        BackendNotFound: No such name.
    """
    get_class(name)
    with _lock:
        _default[:] = [name]


def current() -> Backend:
    """The default backend.

    Raises:
        BackendNotFound: No default was set.
    """
    with _lock:
        name = _default[0] if _default else None
    if name is None:
        raise BackendNotFound("(default)", list_names())
    return get(name)
