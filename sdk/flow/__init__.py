"""Composable agent modules: ``Workflow`` (like ``nn.Module``), ``AgentParam``, ``Agent``."""

from rath.flow._agent import Agent
from rath.flow._compressor import Compressor
from rath.flow._module import Workflow
from rath.flow._param import AgentParam
from rath.llm._provider import Provider
from rath.workflows._module_registry import register_workflow_class

__all__ = [
    "Agent",
    "AgentParam",
    "Compressor",
    "Provider",
    "Workflow",
    "register_workflow_class",
]
