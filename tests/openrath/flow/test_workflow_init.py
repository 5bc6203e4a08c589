"""A Workflow subclass need not call ``super().__init__()`` first (OpenRath's README program)."""

from __future__ import annotations

from support import FAST, fake_provider

from rath import flow
from rath.llm import Provider
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply

PROVIDER = Provider(model="m", base_url="http://127.0.0.1:9/v1", api_key="k")


class NoSuper(flow.Workflow):
    def __init__(self, prompt: str) -> None:
        self.agent = flow.Agent(prompt, provider=PROVIDER)

    def forward(self, session: Session) -> Session:
        return self.agent(session)


class SuperLast(flow.Workflow):
    def __init__(self) -> None:
        self.writer = flow.Agent("Write.", provider=PROVIDER)
        self.inner = NoSuper("Edit.")
        super().__init__()

    def forward(self, session: Session) -> Session:
        return self.inner(self.writer(session))


def test_agents_assigned_without_super_init_are_registered() -> None:
    module = NoSuper("Answer.")
    assert [name for name, _ in module.named_children()] == ["agent"]
    assert [name for name, _ in module.named_agents()] == ["agent.agent"]
    assert "(agent): Agent(" in repr(module)


def test_super_init_called_last_keeps_what_was_assigned() -> None:
    module = SuperLast()
    assert [name for name, _ in module.named_children()] == ["writer", "inner"]
    assert [name for name, _ in module.named_agents()] == ["inner.agent.agent", "writer.agent"]
    assert module.get_submodule("inner").__class__ is NoSuper


def test_such_a_module_still_records_its_constructor_arguments() -> None:
    assert NoSuper("Answer.").__dict__["_init_args"] == (("Answer.",), {})


class Headline(flow.Workflow):
    """OpenRath's README program: no ``super().__init__()``, run durably."""

    def __init__(self, provider: flow.Provider) -> None:
        self.agent = flow.Agent("Answer.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        return self.agent(session)


def test_such_a_module_runs_durably(rath_env: Settings) -> None:
    with FakeChatServer([text_reply("traceable")]) as server:
        out = Headline(fake_provider(server))(Session.from_user_message("count"))
        rows = out.chunk_table.rows  # the worker rebuilt the module from its class
    assert rows[-1].payload["content"] == "traceable"
