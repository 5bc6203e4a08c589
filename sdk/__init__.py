"""Rath: OpenRath's PyTorch-like multi-agent API, durable on Temporal. See docs/modules.md."""

import importlib
from typing import TYPE_CHECKING, Any

from rath.utils.lazy import lazy_dir
from rath.utils.runtime_hook import install_runtime

if TYPE_CHECKING:
    from rath import errors, flow, llm, session
    from rath.approvals import approve, deny, pending_approvals
    from rath.budget import Budget
    from rath.errors import RathError
    from rath.flow import Agent, AgentParam, Provider, Workflow
    from rath.runtime.queries import run_graph
    from rath.session import Session

__all__ = [
    "Agent",
    "AgentParam",
    "Budget",
    "Provider",
    "RathError",
    "Session",
    "Workflow",
    "approve",
    "deny",
    "errors",
    "flow",
    "llm",
    "pending_approvals",
    "run_graph",
    "session",
]

# name -> (module, attribute); attribute None means the module itself.
_EXPORTS: dict[str, tuple[str, str | None]] = {
    "backend": ("rath.backend", None),
    "errors": ("rath.errors", None),
    "flow": ("rath.flow", None),
    "llm": ("rath.llm", None),
    "memory": ("rath.memory", None),
    "session": ("rath.session", None),
    "run_graph": ("rath.runtime.queries", "run_graph"),
    "approve": ("rath.approvals", "approve"),
    "deny": ("rath.approvals", "deny"),
    "pending_approvals": ("rath.approvals", "pending_approvals"),
    "Budget": ("rath.budget", "Budget"),
    "RathError": ("rath.errors", "RathError"),
    "Agent": ("rath.flow", "Agent"),
    "AgentParam": ("rath.flow", "AgentParam"),
    "Provider": ("rath.flow", "Provider"),
    "Workflow": ("rath.flow", "Workflow"),
    "Session": ("rath.session", "Session"),
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'rath' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


__dir__ = lazy_dir(__name__)


def _client_host() -> Any:
    """The runtime's session host (importing ``rath.runtime`` installs it)."""
    # Deferred downward import, for cost only: the runtime loads Temporal's client.
    from rath.runtime import client_host

    return client_host.current()


install_runtime(_client_host)
