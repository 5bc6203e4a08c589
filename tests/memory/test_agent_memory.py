"""``Agent(memory=...)``: remember/recall/commit methods, injection before a run, commit after."""

from __future__ import annotations

import json

import pytest
from support import FAST, fake_provider

from rath import flow
from rath.errors import ConfigError
from rath.memory import MEMORY_PREFIX, open_memory_store
from rath.session import ChunkKind, Session
from rath.settings import Settings
from rath.testing import FakeChatServer, RecordedRequest, function_handler, text_reply

DARK = "The user prefers dark mode."


def memory_messages(request: RecordedRequest) -> list[str]:
    return [
        m["content"]
        for m in request.messages
        if m["role"] == "system" and m["content"].startswith(MEMORY_PREFIX)
    ]


def test_remember_and_recall_outside_workflows_persist_in_the_data_dir(
    rath_env: Settings,
) -> None:
    agent = flow.Agent("x", model="m", memory="local")
    record = agent.remember_memory(DARK)
    assert record.uri.startswith("memory://user/memories/preferences/")
    # A second agent (a new store handle on the same file) finds it.
    hits = flow.Agent("y", model="m", memory="local").recall_memory("which mode, dark?")
    assert [hit.uri for hit in hits] == [record.uri] and hits[0].score > 0
    assert (rath_env.home / "memory" / "memory.db").exists()


def test_memory_methods_need_memory() -> None:
    with pytest.raises(ConfigError, match="memory='local'"):
        flow.Agent("x", model="m").recall_memory("q")
    # As in OpenRath, commit_on_forward without memory is allowed and commits nothing.
    assert flow.Agent("x", model="m", commit_on_forward=True).memory is None


def test_relevant_memories_are_injected_once_along_a_chain(rath_env: Settings) -> None:
    flow.Agent("x", model="m", memory="local").remember_memory(DARK)
    with FakeChatServer(function_handler(lambda request: "ok")) as server:
        provider = fake_provider(server)
        first = flow.Agent("First.", provider=provider, options=FAST, memory="local")
        second = flow.Agent("Second.", provider=provider, options=FAST, memory="local")
        out = second(first(Session.from_user_message("Is dark mode what I like?")))
        rows = out.chunk_table.rows
        requests = server.requests
    assert len(memory_messages(requests[0])) == 1 and DARK in memory_messages(requests[0])[0]
    # The second agent sees the first's injected row and adds no copy of it.
    assert len(memory_messages(requests[1])) == 1
    marked = [r for r in rows if r.kind is ChunkKind.SYSTEM]
    assert len(marked) == 1 and marked[0].at is not None


def test_no_memory_is_injected_when_nothing_matches(rath_env: Settings) -> None:
    flow.Agent("x", model="m", memory="local").remember_memory(DARK)
    with FakeChatServer([text_reply("ok")]) as server:
        agent = flow.Agent("A.", provider=fake_provider(server), options=FAST, memory="local")
        agent(Session.from_user_message("How tall is Everest?")).synchronize()
        assert memory_messages(server.requests[0]) == []


def test_commit_on_forward_stores_the_runs_facts(rath_env: Settings) -> None:
    facts = json.dumps([{"content": "The user's cat is called Miso.", "category": "profile"}])
    with FakeChatServer([text_reply("Nice cat!"), text_reply(facts)]) as server:
        agent = flow.Agent(
            "A.",
            provider=fake_provider(server),
            options=FAST,
            memory="local",
            commit_on_forward=True,
        )
        out = agent(Session.from_user_message("My cat is called Miso."))
        out.synchronize()
        extraction = server.requests[1]
    assert dict(out.lineage_extras) == {"memory.committed": 1}
    assert "My cat is called Miso." in json.dumps(extraction.messages)
    with open_memory_store() as store:
        assert "The user's cat is called Miso." in [r.content for r in store.list()]
    assert out.usage is not None and out.usage.total_tokens == 15 + 15  # run + extraction


def test_a_commit_reply_without_facts_is_not_retried(rath_env: Settings) -> None:
    # The extraction reply is prose, not a JSON list: an ExtractionError is a mistake a retry
    # does not fix, so the commit fails once and the run goes on (issue 29 N3).
    with FakeChatServer(function_handler(lambda request: "Nice cat!")) as server:
        agent = flow.Agent(
            "A.",
            provider=fake_provider(server),
            options=FAST,
            memory="local",
            commit_on_forward=True,
        )
        out = agent(Session.from_user_message("My cat is called Miso."))
        out.synchronize()
        requests = len(server.requests)
    assert requests == 2  # the run's round and one extraction attempt
    assert "memory.committed" not in dict(out.lineage_extras)


class Committer(flow.Workflow):
    """A durable forward that commits its agent's answer and recalls what was stored."""

    def __init__(self, provider: flow.Provider, wait: bool) -> None:
        super().__init__()
        self.agent = flow.Agent("A.", provider=provider, options=FAST, memory="local")
        self.wait = wait

    async def forward(self, session: Session) -> Session:
        out = await self.agent(session)
        await self.agent.commit_memory(out, wait=self.wait)
        found = await self.agent.recall_memory("Miso")
        assert list(found.hits) == list(found)  # OpenRath's .hits on Rath's list, in a forward
        return out


@pytest.mark.parametrize("wait", [False, True])
def test_commit_memory_in_a_forward_extracts_only_when_waited_for(
    rath_env: Settings, wait: bool
) -> None:
    fact = f"The user's cat is called Miso (wait={wait})."
    facts = json.dumps([{"content": fact, "category": "profile"}])
    with FakeChatServer([text_reply("Nice cat!"), text_reply(facts)]) as server:
        Committer(fake_provider(server), wait)(
            Session.from_user_message("My cat: Miso")
        ).synchronize()
        requests = len(server.requests)
    with open_memory_store() as store:
        stored = [record.content for record in store.list()]
    assert requests == (2 if wait else 1)
    assert (fact in stored) is wait
