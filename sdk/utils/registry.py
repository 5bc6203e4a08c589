"""A registry of pluggable classes by name: one instance each, a default. See docs/modules.md."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, Generic, Protocol, TypeVar

from rath.utils.targets import class_target, import_target


class Pluggable(Protocol):
    """What a registered class offers: a name and whether it can run here."""

    name: ClassVar[str]

    @classmethod
    def is_available(cls) -> bool:
        """Whether the class can run in this process (its SDK or binary is installed)."""
        ...


T = TypeVar("T", bound=Pluggable)


class NamedRegistry(Generic[T]):
    """Names to classes; :meth:`get` builds each name's instance once per process."""

    def __init__(
        self,
        kind: str,
        not_found: Callable[[str, Sequence[str]], Exception],
        *,
        ordered: bool = False,
    ) -> None:
        self._kind = kind
        self._ordered = ordered
        self._not_found = not_found
        self._lock = threading.Lock()
        self._classes: dict[str, type[T]] = {}
        self._targets: dict[str, str] = {}
        self._instances: dict[str, T] = {}
        self._default: str | None = None

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        """Class decorator: register a class under ``name`` (and set its ``name``).

        Raises:
            ValueError: ``name`` is taken.
        """

        def add(cls: type[T]) -> type[T]:
            with self._lock:
                builtin = self._targets.get(name)
                if name in self._classes or builtin not in (None, class_target(cls)):
                    raise ValueError(f"a {self._kind} named {name!r} is already registered")
                cls.name = name
                self._classes[name] = cls
            return cls

        return add

    def register_target(self, name: str, target: str) -> None:
        """Register ``"module:QualName"`` under ``name``, imported on first use (built-ins)."""
        with self._lock:
            if name in self._classes or name in self._targets:
                raise ValueError(f"a {self._kind} named {name!r} is already registered")
            self._targets[name] = target

    def list_names(self) -> list[str]:
        """The registered names, sorted (in registration order when ``ordered``)."""
        with self._lock:
            names = list(dict.fromkeys([*self._targets, *self._classes]))
        return names if self._ordered else sorted(names)

    def get_class(self, name: str) -> type[T]:
        """The class registered as ``name`` (raises the plane's not-found error)."""
        with self._lock:
            cls = self._classes.get(name)
            target = self._targets.get(name)
        if cls is None and target is not None:
            cls = self._load(name, target)
        if cls is None:
            raise self._not_found(name, self.list_names())
        return cls

    def _load(self, name: str, target: str) -> type[T]:
        found: type[T] = import_target(target)
        with self._lock:
            found.name = name
            return self._classes.setdefault(name, found)

    def get(self, name: str) -> T:
        """The process's one instance of ``name`` (raises the plane's not-found error)."""
        cls = self.get_class(name)
        with self._lock:
            if name not in self._instances:
                self._instances[name] = cls()
            return self._instances[name]

    def is_available(self, name: str) -> bool:
        """Whether ``name`` is registered and can run here."""
        if name not in self.list_names():
            return False
        return self.get_class(name).is_available()

    def preferred(self, names: Iterable[str]) -> T:
        """The first of ``names`` that is available (raises the not-found error if none)."""
        names = list(names)
        for name in names:
            if self.is_available(name):
                return self.get(name)
        raise self._not_found(" or ".join(names) or "(none asked)", self.list_names())

    def set_default(self, name: str) -> None:
        """Make ``name`` what :meth:`current` returns (it must be registered)."""
        if name not in self.list_names():
            raise self._not_found(name, self.list_names())
        with self._lock:
            self._default = name

    def current(self) -> T:
        """The default's instance (raises the not-found error when none was set)."""
        with self._lock:
            name = self._default
        if name is None:
            raise self._not_found("(default)", self.list_names())
        return self.get(name)
