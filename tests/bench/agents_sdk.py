"""P5's OpenAI Agents SDK contender: ``Runner.run`` in a Temporal workflow.

``temporalio.contrib.openai_agents`` as its documentation sets it up: the model calls are the
plugin's activities (Chat Completions on the same fake model, through ``OpenAIProvider`` with
``use_responses=False``), the file write is an activity turned into a tool by
``activity_as_tool``, and the plugin goes on the client only (the worker inherits it). Not a
dependency of Rath: ``bash tests/bench/setup_contenders.sh`` installs it in ``.venv-bench``.
Set ``OPENAI_AGENTS_DISABLE_TRACING=1`` before importing this module.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from openai import AsyncOpenAI
from temporalio import activity, workflow
from temporalio.contrib.openai_agents import ModelActivityParameters, OpenAIAgentsPlugin
from temporalio.contrib.openai_agents.workflow import activity_as_tool

with workflow.unsafe.imports_passed_through():
    from agents import Agent, OpenAIProvider, Runner


class FileTools:
    """The file-write activity, writing under the workspaces' root."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @activity.defn(name="agents.write_workspace_file")
    async def write_workspace_file(self, path: str, content: str) -> str:
        """Write text (UTF-8) to a file in the workspace.

        Args:
            path: The file's path, relative to the workspace.
            content: The file content.
        """
        workspace = (self.root / activity.info().workflow_id).resolve()
        target = (workspace / path).resolve()
        if not target.is_relative_to(workspace):
            return '{"error": "path_outside_workspace"}'
        target.parent.mkdir(parents=True, exist_ok=True)
        return f'{{"bytes_written": {target.write_text(content, encoding="utf-8")}}}'


@workflow.defn(name="bench.AgentsSdkAgent")
class AgentsSdkAgent:
    """One agent with the file-write tool, run to its final answer."""

    @workflow.run
    async def run(self, prompt: str) -> str:
        """Run the agent on ``prompt``."""
        agent = Agent(
            name="bench",
            instructions="bench",
            model="fake",
            tools=[
                activity_as_tool(
                    FileTools.write_workspace_file, start_to_close_timeout=timedelta(seconds=30)
                )
            ],
        )
        result = await Runner.run(agent, prompt)
        return str(result.final_output)


def plugin(client: AsyncOpenAI) -> OpenAIAgentsPlugin:
    """The plugin for the Temporal client, with ``client`` pointed at the fake model."""
    return OpenAIAgentsPlugin(
        model_params=ModelActivityParameters(start_to_close_timeout=timedelta(seconds=60)),
        model_provider=OpenAIProvider(openai_client=client, use_responses=False),
    )
