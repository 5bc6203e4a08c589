"""rath.flow against OpenRath's flow API: module paths, reprs, memory binding and methods,
injection, built-in tool classes, the tool base class, tool result bodies and MCP helpers."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import pytest
from pydantic import BaseModel

import rath.flow.tool.system_tool as system_tool
import rath.tools.builtins as builtins
from rath import flow
from rath.backend import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileEntry,
    FileWriteResult,
    ToolExecutionFailure,
    ToolResult,
)
from rath.flow.memory_inject import DefaultRecallInjection
from rath.flow.tool import (
    FlowToolCodeRun,
    FlowToolCommandRun,
    FlowToolFilesExists,
    FlowToolFilesList,
    FlowToolFilesRead,
    FlowToolFilesWrite,
    MCPToolCall,
)
from rath.llm import Provider
from rath.memory import (
    MemoryBackend,
    MemoryCapabilities,
    MemoryCommitResult,
    MemoryFindResult,
    MemoryHit,
    MemoryOp,
    MemoryOpCommit,
    MemoryOpFind,
    MemoryOpWrite,
    MemoryRecord,
    MemoryResult,
    MemorySpec,
    MemoryStore,
    MemoryStoreClosed,
    MemoryStoreSpec,
    MemoryWriteResult,
    ScopeModel,
    memory_row,
)
from rath.session import ChunkKind, ChunkTable, Session, system_text_chunk, user_text_chunk
from rath.tools import FlowToolCall, tool
from rath.tools.base import run_tool_call
from rath.tools.bodies import MAX_BODY_CHARS, result_body
from rath.tools.mcp.adapter import _coerce_input_schema, _flatten_call_result

HIT = MemoryHit(uri="memory://user/memories/preferences/a", score=0.9, snippet="dark mode")


class Recorder(MemoryBackend):
    """A plane backend that records every op and answers finds with ``hits``."""

    def __init__(self, hits: tuple[MemoryHit, ...] = (), fail: bool = False) -> None:
        super().__init__()
        self.ops: list[MemoryOp] = []
        self.hits = hits
        self.fail = fail

    @classmethod
    def capabilities(cls) -> MemoryCapabilities:
        return MemoryCapabilities(scope_model=ScopeModel.HYBRID, supports_session_commit=True)

    def _open(self, spec: MemoryStoreSpec | None) -> tuple[str, Any]:
        return "rec", None

    def _dispatch(self, store: MemoryStore, op: MemoryOp) -> MemoryResult:
        if self.fail:
            raise RuntimeError("backend down")
        self.ops.append(op)
        if isinstance(op, MemoryOpWrite):
            return MemoryWriteResult(uri=op.uri, bytes_written=len(op.content))
        if isinstance(op, MemoryOpFind):
            return MemoryFindResult(hits=self.hits)
        return MemoryCommitResult(
            task_id=None, archived_uri="memory://session/s", extracted_count=-1
        )


def user_session(*texts: str) -> Session:
    session = Session.from_agent_prompt("system")
    session.chunk_table = ChunkTable(
        rows=session.chunk_table.rows + tuple(user_text_chunk(text) for text in texts)
    )
    return session


# -- module paths, AgentParam, reprs, Compressor ------------------------------------------


def test_openraths_module_paths_import_the_same_objects() -> None:
    import rath.flow.agent
    import rath.flow.agent_param
    import rath.flow.compressor
    import rath.flow.tool.base
    import rath.flow.tool.tool_table
    import rath.flow.workflow
    import rath.llm
    import rath.tools

    assert rath.flow.agent.Agent is flow.Agent
    assert rath.flow.agent_param.AgentParam is flow.AgentParam
    assert rath.flow.agent_param.Provider is rath.llm.Provider
    assert rath.flow.workflow.Workflow is flow.Workflow
    assert rath.flow.compressor.Compressor is flow.Compressor
    assert rath.flow.tool.base.FlowToolCall is rath.tools.FlowToolCall
    assert rath.flow.tool.tool_table.ToolNameConflictError is flow.tool.ToolNameConflictError
    assert system_tool.FlowToolCommandRun is FlowToolCommandRun


def test_agent_param_carries_memory_in_its_data() -> None:
    param = flow.AgentParam(Session.from_agent_prompt("s"), Provider(model="m"))
    assert param.memory is None
    assert set(param.data) == {"agent_session", "provider", "memory"}
    assert flow.Agent("x", model="m").agent.memory is None


def test_agent_param_repr_is_torch_like() -> None:
    session = Session.from_agent_prompt("s")
    param = flow.AgentParam(session, Provider(model="gpt-x"))
    session_lines = repr(session).split("\n")
    assert repr(param).split("\n") == [
        "AgentParam(",
        f"  (agent_session): {session_lines[0]}",
        *(f"  {line}" for line in session_lines[1:]),
        "  (provider): gpt-x",
        ")",
    ]
    param.memory = MemorySpec()
    assert repr(param).split("\n")[-2] == f"  (memory): {MemorySpec()!r}"


def test_workflow_repr_lists_agents_sorted_by_name() -> None:
    class Two(flow.Workflow):
        def __init__(self) -> None:
            super().__init__()
            self.zeta = flow.AgentParam(Session.from_agent_prompt("z"), Provider(model="m"))
            self.alpha = flow.AgentParam(Session.from_agent_prompt("a"), Provider(model="m"))

    two = Two()
    lines = repr(two).split("\n")
    assert lines[0] == "Two(" and lines[-1] == ")"
    assert lines[1] == f"  (alpha): {repr(two.alpha).split(chr(10))[0]}"
    assert [line for line in lines if line.startswith("  (")] == [
        "  (alpha): AgentParam(",
        "  (zeta): AgentParam(",
    ]
    assert repr(flow.Workflow()) == "Workflow()"


def test_compressor_passes_on_event_to_the_compression(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake(*args: Any, **kwargs: Any) -> str:
        seen.update(kwargs)
        return "out"

    monkeypatch.setattr("rath.flow.compressor.run_session_compress", fake)
    events: list[object] = []
    compressor = flow.Compressor("Summarise.", Provider(model="m"), on_event=events.append)
    assert compressor(Session.from_user_message("hi")) == "out"  # type: ignore[comparison-overlap]
    assert seen["on_event"] == events.append and seen["agent_name"] == "compressor"


# -- memory binding -----------------------------------------------------------------------


def test_memory_of_another_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="got int"):
        flow.Agent("x", model="m", memory=123)  # type: ignore[arg-type]


def test_commit_on_forward_without_memory_is_allowed() -> None:
    agent = flow.Agent("x", model="m", commit_on_forward=True)
    assert agent.commit_on_forward and agent.memory is None and agent._agent_memory() is None


def test_agent_memory_is_the_store_it_holds_until_closed() -> None:
    store = Recorder().open()
    agent = flow.Agent("x", model="m", memory=store)
    assert agent.memory is store and agent.agent.memory is store and store.refcount == 1
    agent.close()
    assert agent.memory is None and agent.agent.memory is None and store.closed


def test_agent_memory_is_the_spec_for_raths_forms() -> None:
    assert flow.Agent("x", model="m", memory="local").memory == MemorySpec()
    assert flow.Agent("x", model="m", memory="local:notes").memory == MemorySpec(store="notes")


def test_a_closed_agent_names_its_stores_handle() -> None:
    store = Recorder().open()
    agent = flow.Agent("x", model="m", memory=store)
    agent.close()
    with pytest.raises(MemoryStoreClosed, match="agent was closed") as info:
        agent.recall_memory("q")
    assert info.value.handle == "rec"


# -- memory methods on a plane store ------------------------------------------------------


def test_remember_memory_writes_once_under_scope_and_category() -> None:
    backend = Recorder()
    agent = flow.Agent("x", model="m", memory=backend.open())
    result = agent.remember_memory("Tea, not coffee.", scope="agent", category="tools", wait=True)
    (op,) = backend.ops
    assert isinstance(op, MemoryOpWrite) and op.wait and op.content == "Tea, not coffee."
    assert op.uri.startswith("memory://agent/memories/tools/")
    assert result == MemoryWriteResult(uri=op.uri, bytes_written=16)
    agent.remember_memory("  tea, NOT coffee. ")
    assert backend.ops[1].uri.rsplit("/", 1)[1] == op.uri.rsplit("/", 1)[1]  # same text, same id


def test_recall_memory_sends_a_find_with_target_uri() -> None:
    backend = Recorder(hits=(HIT,))
    agent = flow.Agent("x", model="m", memory=backend.open())
    result = agent.recall_memory("theme?", top_k=3, target_uri="memory://user/memories/")
    assert result == MemoryFindResult(hits=(HIT,))
    assert backend.ops == [
        MemoryOpFind(query="theme?", target_uri="memory://user/memories/", top_k=3)
    ]


def test_commit_memory_sends_the_conversation_without_injected_memories() -> None:
    backend = Recorder()
    agent = flow.Agent("x", model="m", memory=backend.open())
    session = user_session("hello")
    record = MemoryRecord(
        uri=HIT.uri, content="dark", scope="user", category="preferences", created_at=0
    )
    session.chunk_table = ChunkTable(rows=(memory_row(record), *session.chunk_table.rows))
    result = agent.commit_memory(session, wait=True)
    (op,) = backend.ops
    assert isinstance(result, MemoryCommitResult) and isinstance(op, MemoryOpCommit)
    assert op.session_id == str(session.id) and op.wait
    assert list(op.messages) == [
        {"role": "system", "content": "system"},
        {"role": "user", "content": "hello"},
    ]


# -- DefaultRecallInjection.inject --------------------------------------------------------


def test_injected_rows_use_openraths_text_and_target_uri_as_given() -> None:
    backend = Recorder(hits=(HIT, MemoryHit(uri="memory://user/memories/x/b", score=0.5)))
    policy = DefaultRecallInjection(top_k=2, target_uri="memory://user/memories/")
    rows = policy.inject(user_session("first", "", "Theme?"), backend.open())
    assert [(row.kind, row.payload["content"]) for row in rows] == [
        (ChunkKind.SYSTEM, f"[memory:{HIT.uri}] dark mode"),
        (ChunkKind.SYSTEM, "[memory:memory://user/memories/x/b]"),
    ]
    assert backend.ops == [
        MemoryOpFind(query="Theme?", target_uri="memory://user/memories/", top_k=2)
    ]


def test_injection_into_a_closed_store_is_empty_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    backend = Recorder(hits=(HIT,))
    store = backend.open()
    store.close()
    with caplog.at_level(logging.WARNING, logger="rath.flow.memory_inject"):
        assert DefaultRecallInjection().inject(user_session("hi"), store) == ()
    assert "store is closed" in caplog.text and backend.ops == []


def test_injection_whose_recall_fails_is_empty_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    store = Recorder(fail=True).open()
    with caplog.at_level(logging.WARNING, logger="rath.flow.memory_inject"):
        assert DefaultRecallInjection().inject(user_session("hi"), store) == ()
    assert "backend down" in caplog.text


def test_injection_skips_zero_scores_and_memories_already_present() -> None:
    zero = MemoryHit(uri="memory://user/memories/x/zero", score=0.0, snippet="no")
    store = Recorder(hits=(HIT, zero)).open()
    session = user_session("hi")
    session.chunk_table = ChunkTable(
        rows=(system_text_chunk(f"[memory:{HIT.uri}] dark mode"), *session.chunk_table.rows)
    )
    assert DefaultRecallInjection().inject(session, store) == ()


# -- built-in tool classes ----------------------------------------------------------------


def test_built_in_classes_declare_parallel_safe() -> None:
    safe = {cls: cls.parallel_safe for cls in (FlowToolCommandRun, FlowToolCodeRun)}
    assert safe == {FlowToolCommandRun: False, FlowToolCodeRun: False}
    for cls in (FlowToolFilesRead, FlowToolFilesWrite, FlowToolFilesList, FlowToolFilesExists):
        assert cls.parallel_safe is True and "parallel_safe" in vars(cls)


def test_a_non_string_path_is_keyed_by_its_str() -> None:
    assert FlowToolFilesRead().resource_key({"path": 7}) == ("fs:read", "7")
    assert FlowToolFilesWrite().resource_key({}) == ("fs:write", "<unknown>")


def test_a_non_string_command_is_converted_with_str(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[object] = []
    monkeypatch.setattr(builtins, "flow_tool_command_run", lambda s, cmd: sent.append(cmd))
    FlowToolCommandRun()(Session.from_user_message("x"), {"cmd": 5})
    assert sent == ["5"]


# -- FlowToolCall is abstract -------------------------------------------------------------


def test_a_tool_missing_an_abstract_member_cannot_be_made() -> None:
    class NoName(FlowToolCall):
        parameters: Mapping[str, Any] = {"type": "object"}

        def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
            return 1

    class NoCall(FlowToolCall):
        name = "no_call"
        parameters: Mapping[str, Any] = {"type": "object"}

    class Set(FlowToolCall):
        def __init__(self) -> None:
            self.name, self.parameters = "set", {"type": "object"}

        def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
            return 1

    with pytest.raises(TypeError, match="'name'"):
        NoName()
    with pytest.raises(TypeError, match="abstract"):
        NoCall()  # type: ignore[abstract]
    with pytest.raises(TypeError):
        FlowToolCall()  # type: ignore[abstract]
    assert Set().name == "set" and tool(lambda_tool).name == "lambda_tool"


def lambda_tool(x: int) -> int:
    """Return x."""
    return x


# -- user tool result bodies --------------------------------------------------------------


class Point(BaseModel):
    x: int


def test_a_backend_failure_becomes_an_error_body() -> None:
    body = json.loads(result_body(ToolExecutionFailure("timeout", "too slow", "TimeoutError")))
    assert body == {
        "ok": False,
        "error_kind": "timeout",
        "message": "too slow",
        "detail": "TimeoutError",
    }
    assert json.loads(result_body(ToolExecutionFailure("x", "y"))) == {
        "ok": False,
        "error_kind": "x",
        "message": "y",
    }


async def test_a_returned_backend_failure_is_a_failed_call() -> None:
    class Failing(FlowToolCall):
        name = "failing"
        parameters: Mapping[str, Any] = {"type": "object", "properties": {}}

        def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
            return ToolExecutionFailure("timeout", "too slow")

    body, ok = await run_tool_call(Failing(), None, {})
    assert not ok and json.loads(body)["error_kind"] == "timeout"


def test_a_bool_becomes_an_ok_body() -> None:
    assert json.loads(result_body(True)) == {"ok": True}
    assert json.loads(result_body(False)) == {"ok": False}


def test_backend_results_become_the_built_in_bodies() -> None:
    class Other(ToolResult):
        pass

    ran = CommandResult(exit_code=1, stdout=b"out", stderr=b"err", elapsed_ms=2.5)
    assert json.loads(result_body(ran)) == {
        "exit_code": 1,
        "stdout": "out",
        "stderr": "err",
        "elapsed_ms": 2.5,
    }
    assert json.loads(result_body(FileContent(b"hi"))) == {"data": "hi"}
    long = json.loads(result_body(FileContent("x" * 12_001)))["data"]
    assert long == "x" * 12_000 + "...(truncated)"
    listing = FileEntries(entries=(FileEntry("a", "/w/a", False),) * 501)
    assert len(json.loads(result_body(listing))["entries"]) == 500
    assert json.loads(result_body(FileWriteResult(3))) == {"bytes_written": 3}
    code = json.loads(result_body(CodeResult(text=None, stdout=b"2\n", stderr=b"", error=None)))
    assert code == {"text": None, "stdout": "2\n", "stderr": "", "error": None}
    assert json.loads(result_body(Other())) == {"type": "Other", "note": "unserialised result"}


def test_models_and_json_values_keep_their_rendering() -> None:
    assert result_body(Point(x=1)) == '{"x": 1}'
    assert result_body(42) == "42" and result_body("ok") == '"ok"'


# -- MCP helpers --------------------------------------------------------------------------


class Part:
    def __init__(self, text: Any = None) -> None:
        if text is not None:
            self.text = text

    def __str__(self) -> str:
        return "part"


class Result:
    def __init__(self, content: list[Any], **fields: Any) -> None:
        self.content = content
        for name, value in fields.items():
            setattr(self, name, value)


def test_input_schemas_are_coerced_as_openrath_did() -> None:
    class Schema(BaseModel):
        type: str = "object"

    assert _coerce_input_schema({"type": "object", "properties": {}}) == {
        "type": "object",
        "properties": {},
    }
    assert _coerce_input_schema(None) == {"type": "object", "properties": {}}
    assert _coerce_input_schema(Schema()) == {"type": "object"}


def test_call_results_are_flattened_as_openrath_did() -> None:
    assert _flatten_call_result(Result([Part("a"), Part(), Part("b")])) == {"text": "a\nb"}
    assert _flatten_call_result(Result([Part(), Part(3)])) == {"content": ["part", "part"]}
    assert _flatten_call_result(Result([], structuredContent={"n": 1})) == {"n": 1}
    assert _flatten_call_result(Result([], structured_content={"n": 2})) == {"n": 2}
    assert _flatten_call_result(Result([], structured_content={})) == {"ok": True}
    assert _flatten_call_result(Result([])) == {"ok": True}


def test_an_mcp_error_result_is_a_failure() -> None:
    class Client:
        def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Result:
            return Result([Part("boom")], is_error=True)

    mcp_tool = MCPToolCall(client=Client(), name="t", description=None, parameters={})  # type: ignore[arg-type]
    assert mcp_tool(None, {}) == ToolExecutionFailure("mcp_tool_error", "boom")


def test_a_backend_result_body_is_cut_like_any_other() -> None:
    huge = CommandResult(0, b"x" * (2 * MAX_BODY_CHARS), b"", 1.0)
    body = result_body(huge)
    assert len(body) <= MAX_BODY_CHARS + len("...(truncated)") and body.endswith("(truncated)")
