"""``Workflow`` behaves like ``nn.Module``: registration, walks, state, call -> forward."""

from __future__ import annotations

import pytest

from rath import flow
from rath.errors import ConfigError
from rath.session import Session
from rath.tools import tool


class Pair(flow.Workflow):
    def __init__(self) -> None:
        super().__init__()
        self.writer = flow.Agent("Write.", model="m")
        self.editor = flow.Agent("Edit.", model="m", name="chief-editor")
        self.scratch = "not registered"

    def forward(self, session: Session) -> Session:
        return session


class Team(flow.Workflow):
    def __init__(self) -> None:
        super().__init__()
        self.pair = Pair()
        self.lead = flow.AgentParam(Session.from_agent_prompt("Lead."), flow.Provider(model="m"))


def test_assignment_registers_agents_and_children() -> None:
    team = Team()
    assert [name for name, _ in team.named_children()] == ["pair"]
    assert [name for name, _ in team.named_agents()] == [
        "lead",
        "pair.editor.agent",
        "pair.writer.agent",
    ]
    assert [name for name, _ in team.named_agents(recurse=False)] == ["lead"]
    assert [name for name, _ in team.named_workflows()] == [
        "",
        "pair",
        "pair.writer",
        "pair.editor",
    ]
    assert team.get_submodule("pair.writer") is team.pair.writer
    with pytest.raises(AttributeError, match="'nope'"):
        team.get_submodule("pair.nope")


def test_agents_take_their_attribute_name_unless_named() -> None:
    pair = Pair()
    assert pair.writer.name == "writer"
    assert pair.editor.name == "chief-editor"
    assert flow.Agent("x", model="m").name == "agent"


def test_reassigning_and_deleting_unregister() -> None:
    pair = Pair()
    pair.writer = "plain value"  # type: ignore[assignment]
    del pair.editor
    assert pair.named_children() == ()


def test_super_init_is_optional_as_in_openrath() -> None:
    class NoSuper(flow.Workflow):
        def __init__(self) -> None:
            self.agent = flow.Agent("x", model="m")

    assert [name for name, _ in NoSuper().named_children()] == ["agent"]


def test_forward_runs_locally_and_base_forward_is_unimplemented() -> None:
    session = Session.from_user_message("hi")
    assert Pair().forward(session) is session
    with pytest.raises(NotImplementedError, match=r"Team\.forward"):
        Team().forward(session)


class Configured(flow.Workflow):
    def __init__(self, provider: flow.Provider, hook: object = None, **extra: object) -> None:
        super().__init__()
        self.solo = flow.Agent("Solo.", provider=provider)

    def forward(self, session: Session) -> Session:
        return self.solo(session)


def test_constructor_arguments_that_cannot_reach_a_worker_fail_at_call_time() -> None:
    provider = flow.Provider(model="m")
    with pytest.raises(ConfigError, match=r"Configured\(\.\.\.\) argument 1 is a function"):
        Configured(provider, lambda: None)(Session.from_user_message("hi"))
    with pytest.raises(ConfigError, match=r"argument 'extra'\['k'\] is a object"):
        Configured(provider, extra={"k": object()})(Session.from_user_message("hi"))


def test_state_dict_round_trip_without_secrets() -> None:
    team = Team()
    team.lead.provider = flow.Provider(model="m", api_key="sk-test-not-a-secret-123456")
    state = team.state_dict()
    assert set(state) == {
        "lead.agent_session",
        "lead.provider",
        "pair.editor.agent.agent_session",
        "pair.editor.agent.provider",
        "pair.writer.agent.agent_session",
        "pair.writer.agent.provider",
    }
    assert "sk-test" not in repr(state)
    state["lead.agent_session"] = [{"kind": "system", "payload": {"content": "New lead."}}]
    other = Team()
    assert other.load_state_dict(state) == ([], [])
    assert other.lead.agent_session.chunk_table.rows[0].payload["content"] == "New lead."
    with pytest.raises(KeyError, match="unexpected"):
        other.load_state_dict({**state, "ghost.agent_session": []})


def test_agent_needs_a_provider_or_model() -> None:
    with pytest.raises(ConfigError, match="provider or a model"):
        flow.Agent("x")
    assert flow.Agent("x", provider=flow.Provider(), model="m2").agent.provider.model == "m2"


def test_repr_lists_the_tree() -> None:
    text = repr(Team())
    assert "(pair): Pair(" in text and "(lead): AgentParam(\n    (agent_session): Session(" in text
    assert text.index("(writer): Agent(name='writer'") < text.index("(editor): Agent(")


def test_agent_tools_register_once_by_name_and_unregister() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @tool(name="add")
    def other_add(a: int) -> int:
        """Another tool of the same name."""
        return a

    agent = flow.Agent("x", model="m")
    agent.register_tool(add)
    agent.register_tool(other_add)
    assert agent.tools == [add]
    agent.unregister_tool("missing")
    agent.unregister_tool("add")
    assert agent.tools == []
