"""Keeping a config file with keys in it private: git ignores it, only its owner reads it."""

from __future__ import annotations

import logging
import os
import stat
import sys
from pathlib import Path

__all__ = [
    "chmod_user_only",
    "ensure_config_dir_gitignore",
    "ensure_project_gitignore_entry",
    "warn_if_world_readable",
]

logger = logging.getLogger(__name__)

CONFIG_DIR_GITIGNORE = "*\n!.gitignore\n!config.json.example\n"

# Resolved paths already warned about: one warning per file per process.
_WORLD_READABLE_WARNED: set[Path] = set()


def ensure_config_dir_gitignore(directory: Path) -> None:
    """Give ``directory`` a ``.gitignore`` that ignores everything but itself and the example."""
    ignore = directory / ".gitignore"
    if not ignore.exists():
        directory.mkdir(parents=True, exist_ok=True)
        ignore.write_text(CONFIG_DIR_GITIGNORE, encoding="utf-8")


def ensure_project_gitignore_entry(root: Path, marker: str = ".openrath/") -> None:
    """Append ``marker`` to ``root/.gitignore`` when that file exists and does not ignore it yet."""
    ignore = root / ".gitignore"
    if not ignore.is_file():
        return
    text = ignore.read_text(encoding="utf-8")
    wanted = marker.strip().strip("/")
    if any(line.strip().strip("/") == wanted for line in text.splitlines()):
        return
    separator = "" if text.endswith("\n") or not text else "\n"
    ignore.write_text(f"{text}{separator}{marker}\n", encoding="utf-8")


def warn_if_world_readable(path: Path) -> None:
    """Warn (once per file per process) when ``path`` grants its group or others any access."""
    if sys.platform.startswith("win") or not path.is_file():
        return
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    resolved = path.resolve()
    if mode & 0o077 == 0 or resolved in _WORLD_READABLE_WARNED:
        return
    _WORLD_READABLE_WARNED.add(resolved)
    logger.warning(
        "%s has permissions %o: other users may read the secrets in it; run: chmod 600 %s",
        resolved,
        stat.S_IMODE(mode),
        resolved,
    )


def chmod_user_only(path: Path) -> None:
    """Make ``path`` readable and writable by its owner only (mode 600). A no-op on Windows."""
    if not sys.platform.startswith("win"):
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
