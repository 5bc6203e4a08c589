"""Keeping a config file with keys in it private: git ignores it, only its owner reads it."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("rath.config")

CONFIG_DIR_GITIGNORE = "*\n!.gitignore\n!config.json.example\n"


def ensure_config_dir_gitignore(directory: Path) -> None:
    """Give ``directory`` a ``.gitignore`` that ignores everything but itself and the example."""
    ignore = directory / ".gitignore"
    if not ignore.exists():
        directory.mkdir(parents=True, exist_ok=True)
        ignore.write_text(CONFIG_DIR_GITIGNORE)


def ensure_project_gitignore_entry(root: Path, marker: str = ".openrath/") -> None:
    """Append ``marker`` to ``root/.gitignore`` when that file exists and lacks the line."""
    ignore = root / ".gitignore"
    if not ignore.is_file():
        return
    text = ignore.read_text()
    if marker in (line.strip() for line in text.splitlines()):
        return
    ignore.write_text(text + ("" if text.endswith("\n") or not text else "\n") + marker + "\n")


def warn_if_world_readable(path: Path) -> bool:
    """Log a warning when ``path`` is readable by its group or others; return whether it is."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    exposed = bool(mode & (stat.S_IRGRP | stat.S_IROTH))
    if exposed:
        log.warning("%s is readable by other users: chmod 600 %s", path, path)
    return exposed


def chmod_user_only(path: Path) -> None:
    """Make ``path`` readable and writable by its owner only (mode 600)."""
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
