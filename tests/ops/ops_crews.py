"""Durable forwards for the operations tests, and the scripted model they talk to.

``Crew``: a planner, then two coders on forks (concurrently), each calling ``append_line``
once to write its name into an effects file, merged. ``Pair``: a slow writer and a checker
whose model call fails, the writer's session read first.
"""

from __future__ import annotations

import threading
from pathlib import Path

from support import FAST
from tool_app import append_line

from rath import flow
from rath.session import Session
from rath.testing import RecordedRequest, Reply, error_reply, gated, text_reply, tool_call_reply

CODERS = ("code a", "code b")


class Crew(flow.Workflow):
    """planner -> coder a and coder b on forks of the plan -> their merge."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.planner = flow.Agent("plan", provider=provider, options=FAST)
        options = FAST.model_copy(update={"tool_heartbeat_seconds": 2})
        self.coder_a = flow.Agent("code a", provider=provider, tools=[append_line], options=options)
        self.coder_b = flow.Agent("code b", provider=provider, tools=[append_line], options=options)

    def forward(self, session: Session) -> Session:
        plan = self.planner(session)
        return self.coder_a(plan.fork()).merge(self.coder_b(plan.fork()))


class Pair(flow.Workflow):
    """A writer (slow) and a checker (fails); the writer's session is read first."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.writer = flow.Agent("write", provider=provider, options=FAST)
        self.checker = flow.Agent("check", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        written = self.writer(session.fork())
        checked = self.checker(session.fork())
        return written.merge(checked)


class CrewModel:
    """The model behind ``Crew`` and ``Pair``; coders' and writers' first calls wait on ``gate``.

    A coder asks for ``append_line(effects, <its prompt>)``, then reports; the checker's call
    fails with HTTP 400 (not retried).
    """

    def __init__(self, effects: Path, gate: threading.Event) -> None:
        self.effects = effects
        self.gate = gate

    def __call__(self, request: RecordedRequest) -> Reply:
        system = request.messages[0]["content"]
        if system == "check":
            return error_reply(400, "the checker's request is malformed")
        if system == "write":
            return gated(text_reply("written"), self.gate)
        if system in CODERS and request.messages[-1]["role"] != "tool":
            call = tool_call_reply(("append_line", {"path": str(self.effects), "text": system}))
            return gated(call, self.gate)
        return text_reply(f"{system} done")
