"""Composable agent modules: ``Workflow``, ``AgentParam``, ``Agent``. See docs/modules.md."""

from typing import TYPE_CHECKING

from rath.flow.agent import Agent
from rath.flow.agent_param import AgentParam
from rath.flow.compressor import Compressor
from rath.flow.workflow import Workflow
from rath.llm.provider import Provider
from rath.utils.lazy import lazy_names

if TYPE_CHECKING:
    from rath.contracts.modules import register_workflow_class

__all__ = [
    "Agent",
    "AgentParam",
    "Compressor",
    "Provider",
    "Workflow",
    "register_workflow_class",
]

# The workflow registry (and the run contracts it loads) is needed only when a run starts.
__getattr__ = lazy_names(__name__, {"register_workflow_class": "rath.contracts.modules"})
