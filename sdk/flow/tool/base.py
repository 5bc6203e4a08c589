"""OpenRath's module path ``rath.flow.tool.base``: the tool base class, ``FlowToolCall``.

The class is Rath's :class:`rath.tools.FlowToolCall` (the same object), re-exported here.
"""

from __future__ import annotations

from rath.tools import FlowToolCall

__all__ = ["FlowToolCall"]
