"""Composable agent modules: ``Workflow`` (like ``nn.Module``), ``AgentParam``, ``Agent``.

The classes live at OpenRath's module paths: ``rath.flow.workflow``, ``rath.flow.agent_param``,
``rath.flow.agent`` and ``rath.flow.compressor``.
"""

from rath.contracts.modules import register_workflow_class
from rath.flow.agent import Agent
from rath.flow.agent_param import AgentParam
from rath.flow.compressor import Compressor
from rath.flow.workflow import Workflow
from rath.llm.provider import Provider

__all__ = [
    "Agent",
    "AgentParam",
    "Compressor",
    "Provider",
    "Workflow",
    "register_workflow_class",
]
