"""The Squad from the compose issue, importable by worker subprocesses (``squad_app:Squad``)."""

from __future__ import annotations

from typing import Any

from rath import flow
from rath.session import Session
from rath.testing import RecordedRequest, Reply, text_reply, tool_call_reply


class Squad(flow.Workflow):
    """planner -> two coders on forks (concurrently) -> reviewer on their merge."""

    def __init__(self, provider: flow.Provider, options: Any = None, **providers: Any) -> None:
        super().__init__()

        def agent(prompt: str, role: str) -> flow.Agent:
            return flow.Agent(prompt, provider=providers.get(role, provider), options=options)

        self.planner = agent("Break the task into two parts.", "planner")
        self.coder_a = agent("Do part A.", "coder_a")
        self.coder_b = agent("Do part B.", "coder_b")
        self.reviewer = agent("Review and merge the work.", "reviewer")

    def forward(self, session: Session) -> Session:
        plan = self.planner(session)
        a = self.coder_a(plan.fork())
        b = self.coder_b(plan.fork())
        return self.reviewer(a.merge(b))


def role_of(system_prompt: str) -> str:
    """Which Squad agent a request came from, by its system prompt."""
    return {
        "Break the task into two parts.": "planner",
        "Do part A.": "coder_a",
        "Do part B.": "coder_b",
        "Review and merge the work.": "reviewer",
    }[system_prompt]


def files_model(request: RecordedRequest) -> Reply:
    """A scripted model for the Squad: each coder writes ``<role>.txt`` with a workspace
    tool, then reports; the planner and the reviewer answer at once (20 tokens in, 7 out)."""
    role = role_of(request.messages[0]["content"])
    if role.startswith("coder") and request.messages[-1]["role"] != "tool":
        return tool_call_reply(("write_workspace_file", {"path": f"{role}.txt", "content": "x"}))
    return text_reply(f"{role} done", usage=(20, 7))
