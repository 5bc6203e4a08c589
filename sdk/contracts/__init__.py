"""Rath's contracts: every activity's and workflow's name, input and result type.

Each area has its module (``rath.contracts.runs``, ``.llm``, ``.tools``...); see docs/modules.md.
"""

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_names

if TYPE_CHECKING:
    from rath.contracts._contract import (
        ActivityContract,
        ActivityOptions,
        ChildOptions,
        LocalActivityOptions,
        WorkflowContract,
    )

__all__ = [
    "ActivityContract",
    "ActivityOptions",
    "ChildOptions",
    "LocalActivityOptions",
    "WorkflowContract",
]

# Loaded on first use (PEP 562): importing one contract module does not load the others.
__getattr__ = lazy_names(__name__, dict.fromkeys(__all__, "rath.contracts._contract"))
