"""The backend plane's handles on session placements (installed by ``rath.session``).

A handle opens the placement's workspace on this process's backend plane: the same host
directory (or, for ``opensandbox``, the same remote sandbox) the session's worker uses, when
the worker runs on this host.
"""

from __future__ import annotations

from rath.backend import BackendSandbox, get
from rath.session._handles import set_handle_opener
from rath.session.placement import Placement
from rath.settings import Settings

__all__ = ["open_placement"]


def open_placement(placement: Placement) -> BackendSandbox:
    """A plane handle (reference count 0) on ``placement``'s workspace."""
    spec = placement.resolved_spec(Settings.from_env().workspaces_dir)
    return get(spec.backend).open(spec)


set_handle_opener(open_placement)
