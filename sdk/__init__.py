"""Rath: OpenRath's PyTorch-like multi-agent API, running durably on Temporal.

``from rath import flow`` for agents and workflows, ``from rath.session import Session`` for
the values that flow through them. See the README for the embedded default and configuration.
"""

from rath import errors, flow, llm, session
from rath._runtime.queries import run_graph
from rath.approvals import approve, deny, pending_approvals
from rath.budget import Budget
from rath.errors import RathError
from rath.flow import Agent, AgentParam, Provider, Workflow
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
