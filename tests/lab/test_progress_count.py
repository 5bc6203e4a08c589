"""The progress line counts only the agents really running (a pipeline runs one at a time)."""

from __future__ import annotations

import threading
import time

from support import FAST, fake_provider

from rath import flow
from rath.contracts.runs import FORWARD
from rath.runtime.progress import _facts
from rath.runtime.runtime import get_runtime
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0


class Pipeline(flow.Workflow):
    """three agents, each on the previous one's answer: never two at once."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.first = flow.Agent("First.", provider=provider, options=FAST)
        self.second = flow.Agent("Second.", provider=provider, options=FAST)
        self.third = flow.Agent("Third.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        return self.third(self.second(self.first(session)))


def until(run_id: str, want: str) -> str:
    """The run's progress facts, once they contain ``want`` (bounded)."""
    deadline = time.monotonic() + WAIT
    facts = ""
    while time.monotonic() < deadline:
        facts = _facts(get_runtime(), run_id, FORWARD.name)
        if want in facts:
            return facts
        time.sleep(0.2)
    raise AssertionError(f"progress never said {want!r}; last: {facts!r}")


def test_a_pipeline_shows_one_running_agent(rath_env: Settings) -> None:
    gates = [threading.Event(), threading.Event()]
    calls: list[str] = []

    def model(request: RecordedRequest) -> str:
        prompt = request.messages[0]["content"]
        calls.append(prompt)
        if prompt in ("First.", "Second."):
            gates[0 if prompt == "First." else 1].wait(WAIT)
        return f"{prompt} done"

    with FakeChatServer(function_handler(model)) as server:
        out = Pipeline(fake_provider(server))(Session.from_user_message("go"))
        assert out.run_id is not None
        try:
            facts = until(out.run_id, "agents: 1 running")
            assert facts.startswith("agents: 1 running, 0 done, 2 waiting"), facts
            gates[0].set()
            facts = until(out.run_id, "1 done")
            assert facts.startswith("agents: 1 running, 1 done, 1 waiting"), facts
        finally:
            for gate in gates:
                gate.set()
        out.synchronize()
    assert calls == ["First.", "Second.", "Third."]
