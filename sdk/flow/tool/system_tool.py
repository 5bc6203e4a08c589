"""OpenRath's built-in tool classes and session-level tool helpers (``rath.flow.tool.system_tool``).

They are defined in :mod:`rath.tools.builtins`, below the floor of the activities that run them.
"""

from __future__ import annotations

from rath.tools import builtins as _builtins

FlowToolCodeRun = _builtins.FlowToolCodeRun
FlowToolCommandRun = _builtins.FlowToolCommandRun
FlowToolFilesExists = _builtins.FlowToolFilesExists
FlowToolFilesList = _builtins.FlowToolFilesList
FlowToolFilesRead = _builtins.FlowToolFilesRead
FlowToolFilesWrite = _builtins.FlowToolFilesWrite
flow_tool_code_run = _builtins.flow_tool_code_run
flow_tool_command_run = _builtins.flow_tool_command_run
flow_tool_files_exists = _builtins.flow_tool_files_exists
flow_tool_files_list = _builtins.flow_tool_files_list
flow_tool_files_read = _builtins.flow_tool_files_read
flow_tool_files_write = _builtins.flow_tool_files_write
global_system_tools = _builtins.global_system_tools
