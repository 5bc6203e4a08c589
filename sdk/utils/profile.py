"""The address and namespace of the user's Temporal profile, if any. See docs/modules.md."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from rath.errors import ConfigError


def profile_file() -> Path:
    """Where the profile file is (it may not exist)."""
    explicit = os.environ.get("TEMPORAL_CONFIG_FILE")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or "~/.config"
    return Path(base).expanduser() / "temporalio" / "temporal.toml"


def profile_value(key: str) -> str | None:
    """``key`` (``address``, ``namespace``) of the selected profile, if the file sets it.

    Raises:
        ConfigError: ``TEMPORAL_CONFIG_FILE`` names a missing file, or the file is not TOML.
    """
    path = profile_file()
    if not path.is_file():
        if os.environ.get("TEMPORAL_CONFIG_FILE"):
            raise ConfigError(f"TEMPORAL_CONFIG_FILE={str(path)!r} does not exist")
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Temporal profile file {str(path)!r} is unreadable: {exc}") from None
    name = os.environ.get("TEMPORAL_PROFILE") or "default"
    value = data.get("profile", {}).get(name, {}).get(key)
    return str(value) if value else None
