"""The hand-written contender of P5 and P1: the Temporal agent a user would write by hand.

The ``openai`` SDK in an LLM activity, one activity per tool (a file write, a path check), and
the transcript as a list in workflow state (passed whole to every model call): the loop of
Temporal's own samples, with the same model, the same tool names and arguments, and the same
file writes as Rath's run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():  # as Temporal's samples do
    from openai import AsyncOpenAI


def _tool(name: str, description: str, *fields: str) -> dict[str, Any]:
    """A function tool taking the string ``fields``, all required (the Chat Completions shape)."""
    properties = {field: {"type": "string"} for field in fields}
    parameters = {"type": "object", "properties": properties, "required": list(fields)}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


TOOLS = {
    "write_workspace_file": _tool(
        "write_workspace_file", "Write text (UTF-8) to a file in the workspace.", "path", "content"
    ),
    "workspace_path_exists": _tool(
        "workspace_path_exists", "Whether a path exists in the workspace.", "path"
    ),
}
"""The tools a run may offer, by name (a run offers one)."""


@dataclass
class ModelCall:
    """One chat completion request: the whole transcript so far, and the tool offered."""

    model: str
    messages: list[dict[str, Any]]
    tool: str


@dataclass
class FileWrite:
    """One file write, as the model asked for it."""

    path: str
    content: str


@dataclass
class PathCheck:
    """One path check, as the model asked for it."""

    path: str


class AgentActivities:
    """The two activities, sharing one model client and the workspaces' root."""

    def __init__(self, base_url: str, root: Path) -> None:
        self.client = AsyncOpenAI(base_url=base_url, api_key="bench-key")
        self.root = root

    @activity.defn(name="handwritten.complete")
    async def complete(self, call: ModelCall) -> dict[str, Any]:
        """Ask the model; return its message as a plain dict."""
        response = await self.client.chat.completions.create(
            model=call.model,
            messages=call.messages,  # type: ignore[arg-type]
            tools=[TOOLS[call.tool]],  # type: ignore[list-item]
        )
        return response.choices[0].message.model_dump(exclude_none=True)

    def _inside(self, path: str) -> Path | None:
        """``path`` in the session's workspace (a directory named after the workflow), or None
        if it leads outside."""
        workspace = (self.root / activity.info().workflow_id).resolve()
        target = (workspace / path).resolve()
        return target if target.is_relative_to(workspace) else None

    @activity.defn(name="handwritten.write_file")
    async def write_file(self, write: FileWrite) -> dict[str, Any]:
        """Write the file in the session's workspace."""
        target = self._inside(write.path)
        if target is None:
            return {"error": "path_outside_workspace"}
        target.parent.mkdir(parents=True, exist_ok=True)
        return {"bytes_written": target.write_text(write.content, encoding="utf-8")}

    @activity.defn(name="handwritten.path_exists")
    async def path_exists(self, check: PathCheck) -> dict[str, Any]:
        """Whether the path exists in the session's workspace."""
        target = self._inside(check.path)
        if target is None:
            return {"error": "path_outside_workspace"}
        return {"exists": target.exists()}


@workflow.defn(name="bench.HandwrittenAgent")
class HandwrittenAgent:
    """The agent loop: ask the model, run its tool calls, until it answers without one."""

    @workflow.run
    async def run(self, prompt: str, tool: str = "write_workspace_file") -> str:
        """Run the loop on ``prompt``, offering the model ``tool``."""
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "bench"},
            {"role": "user", "content": prompt},
        ]
        while True:
            reply = await workflow.execute_activity(
                "handwritten.complete",
                ModelCall("fake", messages, tool),
                result_type=dict,
                start_to_close_timeout=timedelta(seconds=60),
            )
            messages.append(reply)
            calls = reply.get("tool_calls") or []
            if not calls:
                return str(reply.get("content") or "")
            for call in calls:
                args = json.loads(call["function"]["arguments"])
                writes = call["function"]["name"] == "write_workspace_file"
                result = await workflow.execute_activity(
                    "handwritten.write_file" if writes else "handwritten.path_exists",
                    FileWrite(**args) if writes else PathCheck(**args),
                    result_type=dict,
                    start_to_close_timeout=timedelta(seconds=30),
                )
                messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)}
                )
