"""What makes the runtime's session host: installed by ``rath/__init__`` (docs/design.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rath.errors import ConfigError

_factory: list[Callable[[], Any]] = []


def install_runtime(factory: Callable[[], Any]) -> None:
    """Install what makes the runtime's session host (``rath/__init__`` does, at import)."""
    _factory[:] = [factory]


def make_runtime_host() -> Any:
    """The runtime's session host, from the installed factory.

    Raises:
        ConfigError: No factory is installed (``import rath`` installs one).
    """
    if not _factory:
        raise ConfigError("no session runtime is installed: `import rath` first")
    return _factory[0]()
