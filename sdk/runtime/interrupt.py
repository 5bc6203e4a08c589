"""Ctrl-C on a script waiting for a run: how to pick it up, then exit 130. See docs/modules.md."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from rath.errors import SettingError

INTERRUPTED = 130
"""The exit code of a process Ctrl-C stopped (128 + SIGINT), as shells report it."""
UNUSABLE_SETTING = 1
"""The exit code of a script that ended on a :class:`~rath.errors.SettingError`."""
_NOT_THE_SCRIPT = (
    Path(__file__).resolve().parents[1],  # rath
    *{Path(sysconfig.get_paths()[name]).resolve() for name in ("stdlib", "purelib", "platlib")},
)

_interrupted: list[str] = []
_installed = threading.Lock()
_hooks: list[Callable[[], None]] = []


def reattach_hint(run_id: str, embedded: bool) -> str:
    """How to pick ``run_id`` up again, in one line (and, embedded, what keeps it going)."""
    hint = (
        f"follow it again with `rath sessions follow {run_id}` "
        f"(or rath.session.attach({run_id!r}) in a script)"
    )
    if embedded:
        hint += (
            ". It goes on while a worker with its code runs, and this process's worker has "
            "stopped: keep one running (`rath server --with-worker`, or `rath worker`, with "
            "`--workflows package.module:Class` and `--tools ...` for your own code)"
        )
    return hint


@contextmanager
def waiting_on(run_id: str) -> Iterator[None]:
    """Note ``run_id`` if a ``KeyboardInterrupt`` cuts the wait inside."""
    try:
        yield
    except KeyboardInterrupt:
        _interrupted.append(run_id)
        raise


def install(on_exit: Callable[[], None], embedded: Callable[[], bool]) -> None:
    """Put the exception hook in place (once per process)."""
    with _installed:
        if _hooks:
            return
        _hooks.append(on_exit)
        previous = sys.excepthook

        def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
            if issubclass(kind, SettingError):
                sys.stderr.write(f"rath: {value}{_called_from(tb)}\n")
                _exit(UNUSABLE_SETTING)
            if not (issubclass(kind, KeyboardInterrupt) and _interrupted):
                previous(kind, value, tb)
                return
            run_id = _interrupted[-1]
            hint = reattach_hint(run_id, embedded())
            sys.stderr.write(f"rath: interrupted; run {run_id} goes on: {hint}\n")
            _exit(INTERRUPTED)

        sys.excepthook = hook


def _called_from(tb: TracebackType | None) -> str:
    """`` (at file:line)`` of the innermost frame outside Rath, the stdlib and packages."""
    where = ""
    while tb is not None:
        path = Path(tb.tb_frame.f_code.co_filename)
        parents = path.resolve().parents
        if not path.name.startswith("<frozen") and not any(
            top in parents for top in _NOT_THE_SCRIPT
        ):
            where = f" (at {path.name}:{tb.tb_lineno})"
        tb = tb.tb_next
    return where


def _exit(code: int) -> None:
    """Leave now, skipping interpreter finalisation (where the Temporal core can abort)."""
    logging.disable(logging.WARNING)
    for stop in _hooks:
        try:
            stop()
        except Exception as exc:  # leaving anyway: say why the stop was not clean
            sys.stderr.write(f"rath: stopping the runtime failed: {exc!r}\n")
    logging.disable(logging.NOTSET)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(code)
