"""Behaviour pinned before issue 28's refactor, as golden files (``tests/goldens/*.json``).

Three areas: the request bodies each face of each chat client sends to ``rath.testing``'s fake
servers and the answers it makes of the replies; the six built-in tools' result bodies on the
``local`` sandbox, through the durable path and through OpenRath's classes; ``Session`` and
placement JSON as pydantic and Temporal's pydantic converter write it.

A refactor that keeps behaviour keeps these files. Where it changes a *type* on purpose (the
async face returning OpenRath's response, say), change the projection here (``completion``,
``response``), not the golden. ``RATH_UPDATE_GOLDENS=1`` rewrites the files (see golden.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from golden import Stable, check_golden
from temporalio.contrib.pydantic import pydantic_data_converter
from wires import MODELS, TEST_KEY, WIRES, answer_of, fake_server, provider_for

from rath.backend import BackendSandboxSpec, SandboxLimits
from rath.backend.sandboxes import (
    LocalSandbox,
)
from rath.flow.tool import (
    flow_tool_code_run,
    flow_tool_command_run,
    flow_tool_files_exists,
    flow_tool_files_list,
    flow_tool_files_read,
    flow_tool_files_write,
    global_system_tools,
)
from rath.llm import Provider, RathLLMFunctionTool, RathLLMTokenUsage
from rath.llm.aio import async_chat_client_for
from rath.llm.anthropic import RathAnthropicChatClient
from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage, request_from_openai
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.openai import RathOpenAIChatClient
from rath.llm.provider import SAMPLING_FIELDS
from rath.session import Placement, Session
from rath.testing import RecordedRequest, Reply, text_reply, tool_call_reply
from rath.tools.base import run_tool_call
from rath.tools.bodies import result_body
from rath.tools.builtins import run_builtin

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather of a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"enum": ["C", "F"]}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
CLOCK = {"type": "function", "function": {"name": "clock", "parameters": {"type": "object"}}}
PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
    "HwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
CALLS = [
    {
        "id": "call_a",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    },
    {"id": "call_b", "type": "function", "function": {"name": "clock", "arguments": ""}},
]
CASES: dict[str, dict[str, Any]] = {
    "text": {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hello?"},
        ]
    },
    "tools": {
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [WEATHER, CLOCK],
        "options": {"tool_choice": "required", "parallel_tool_calls": False},
    },
    "images": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in these?"},
                    {"type": "image_url", "image_url": {"url": PIXEL}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                ],
            }
        ]
    },
    "tool_results": {
        "messages": [
            {"role": "system", "content": "Use tools."},
            {"role": "user", "content": "Weather and time?"},
            {"role": "assistant", "content": "Checking.", "tool_calls": CALLS},
            {"role": "tool", "tool_call_id": "call_a", "content": '{"temp": 21}'},
            {"role": "tool", "tool_call_id": "call_b", "content": "12:00"},
        ],
        "tools": [WEATHER, CLOCK],
    },
    "turns": {
        "messages": [
            {"role": "developer", "content": "Answer in French."},
            {"role": "user", "content": "One."},
            {"role": "user", "content": "Two."},
            {"role": "assistant", "content": "Un, deux"},
        ]
    },
    "sampling": {
        "messages": [{"role": "user", "content": "Go."}],
        "options": {
            "temperature": 0.25,
            "top_p": 0.5,
            "max_tokens": 77,
            "stop": ["END", "STOP"],
            "seed": 7,
            "presence_penalty": 0.1,
            "frequency_penalty": 0.2,
            "user": "user-1",
            "response_format": {"type": "json_object"},
            "tool_choice": "none",
        },
    },
    # Not a sampling field: the async face sends it in the body, the sync face passes it to
    # the SDK's create() (which refuses names it does not know).
    "extra_args": {"messages": [{"role": "user", "content": "Go."}], "options": {"x_custom": 1}},
}
REPLIES: dict[str, Reply] = {
    "text": text_reply("Hello.", usage=(12, 3)),
    "tools": tool_call_reply(
        ("get_weather", {"city": "Paris"}), ("clock", "{broken"), content="Checking.", usage=(20, 7)
    ),
    "images": text_reply("A red pixel.", usage=None),
    "tool_results": text_reply("21 degrees at noon.", finish_reason="length", usage=(40, 9)),
    "turns": Reply(content="Trois.", finish_reason="weird_reason", usage=(5, 1)),
    "sampling": Reply(tool_calls=(("", "get_weather", '{"city": "Rome"}'),), finish_reason=""),
    "extra_args": text_reply("Gone."),
}
STREAMED = ("text", "tools")
ROUND = 3


@pytest.fixture(autouse=True)
def _no_ambient_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "openrath"))
    for prefix in ("OPENAI", "ANTHROPIC", "AZURE_OPENAI", "AZURE"):
        for suffix in ("API_KEY", "BASE_URL", "DEFAULT_MODEL", "ENDPOINT", "API_VERSION"):
            monkeypatch.delenv(f"{prefix}_{suffix}", raising=False)


def direct_request(case: dict[str, Any]) -> RathLLMChatRequest:
    """A case as OpenRath's request type (the sync face's input)."""
    messages = [
        RathLLMMessage(
            m["role"],
            m.get("content"),
            tool_call_id=m.get("tool_call_id"),
            tool_calls=tuple(m["tool_calls"]) if m.get("tool_calls") else None,
        )
        for m in case["messages"]
    ]
    tools = [
        RathLLMFunctionTool(
            t["function"]["name"], t["function"]["parameters"], t["function"].get("description")
        )
        for t in case.get("tools", [])
    ]
    options = case.get("options", {})
    return RathLLMChatRequest(
        messages=messages,
        tools=tools or None,
        extra_create_args={k: v for k, v in options.items() if k not in SAMPLING_FIELDS},
        **{k: v for k, v in options.items() if k in SAMPLING_FIELDS},
    )


def async_request(case: dict[str, Any]) -> RathLLMChatRequest:
    """A case as the durable loop builds its request (the async face's input)."""
    return request_from_openai(case["messages"], case.get("tools", []), case.get("options", {}))


def completion(response: RathLLMChatResponse) -> dict[str, Any]:
    """What the durable loop reads of an async-face answer (in round ``ROUND``)."""
    answer = answer_of(response, ROUND)
    usage = answer.usage
    return {
        "content": answer.content,
        "tool_calls": [[c.id, c.name, c.arguments] for c in answer.tool_calls],
        "finish_reason": answer.finish_reason,
        "usage": None
        if usage is None
        else [usage.prompt_tokens, usage.completion_tokens, usage.total_tokens],
        "model": answer.model,
    }


def response(answer: RathLLMChatResponse) -> Any:
    """OpenRath's response without ``raw`` (the SDK's own dump, not Rath's behaviour)."""
    return {k: v for k, v in Stable()(answer).items() if k != "raw"}


def sent(request: RecordedRequest) -> dict[str, Any]:
    """What the fake server received: path, query, the key's header, the body."""
    auth = [h for h in ("authorization", "api-key", "x-api-key") if h in request.headers]
    return {"path": request.path, "query": request.query, "auth": auth, "body": request.body}


def _outcome(call: Callable[..., Any], *args: Any) -> Any:
    try:
        return call(*args)
    except Exception as exc:  # the golden pins the failure too
        return {"raised": type(exc).__name__, "message": str(exc)}


async def _async_face(wire: str, base_url: str, name: str, stream: bool) -> Any:
    client = async_chat_client_for(provider_for(wire, base_url))
    deltas: list[Any] = []
    try:
        if stream:
            answer = await client.astream(async_request(CASES[name]), deltas.append)
        else:
            answer = await client.acomplete(async_request(CASES[name]))
    finally:
        await client.aclose()
    return (
        {"answer": completion(answer), "deltas": Stable()(deltas)} if stream else completion(answer)
    )


def _run_async(wire: str, base_url: str, name: str, stream: bool) -> Any:
    return asyncio.run(_async_face(wire, base_url, name, stream))


def _sync_client(wire: str, base_url: str) -> RathOpenAIChatClient | RathAnthropicChatClient:
    provider = Provider(
        provider_kind=wire,
        model=MODELS[wire],
        base_url=base_url,
        api_key=TEST_KEY,
        retry_max_attempts=1,  # a failure is pinned once, not retried
    )
    return (
        RathAnthropicChatClient(provider) if wire == "anthropic" else RathOpenAIChatClient(provider)
    )


def _sync_face(wire: str, base_url: str, name: str, stream: bool) -> Any:
    client = _sync_client(wire, base_url)
    try:
        request = direct_request(CASES[name])
        if stream:
            return {"deltas": Stable()(list(client.complete_stream(request)))}
        return response(client.complete(request))
    finally:
        client.close()


def _calls() -> Iterator[tuple[str, bool]]:
    yield from ((name, False) for name in CASES)
    yield from ((name, True) for name in STREAMED)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")  # "{broken" input
@pytest.mark.parametrize("face", ["async", "sync"])
@pytest.mark.parametrize("wire", WIRES)
def test_chat_clients_send_and_read_as_before(wire: str, face: str) -> None:
    golden: dict[str, Any] = {}
    current = ["text"]  # each call gets its case's reply, even after a call that sent nothing
    with fake_server(wire, lambda _: REPLIES[current[0]]) as server:
        for name, stream in _calls():
            current[0] = name
            seen = len(server.requests)
            if face == "async":
                answer = _outcome(_run_async, wire, server.base_url, name, stream)
            else:
                answer = _outcome(_sync_face, wire, server.base_url, name, stream)
            requests = [sent(r) for r in server.requests[seen:]]
            golden[f"{name} (streamed)" if stream else name] = {"sent": requests, "answer": answer}
    check_golden(f"llm_{wire}_{face}", Stable()(golden))


@pytest.mark.parametrize("face", ["async", "sync"])
def test_azure_endpoints_are_called_as_before(face: str) -> None:
    golden: dict[str, Any] = {}
    with fake_server("openai", [REPLIES["text"]] * 2) as server:
        root = server.base_url.removesuffix("/v1")
        for style, base_url in (("legacy", f"{root}/openai"), ("v1", f"{root}/openai/v1")):
            seen = len(server.requests)
            if face == "async":
                answer = _outcome(_run_async, "openai", base_url, "text", False)
            else:
                answer = _outcome(_sync_face, "openai", base_url, "text", False)
            golden[style] = {"sent": [sent(r) for r in server.requests[seen:]], "answer": answer}
    check_golden(f"llm_azure_{face}", Stable()(golden))


# --- the six built-in tools on `local` -------------------------------------------------------

TOOL_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("write_workspace_file", {"path": "new/c.txt", "content": "héllo"}),
    ("read_workspace_file", {"path": "a.txt"}),
    ("read_workspace_file", {"path": "bin.dat", "encoding": None}),
    ("read_workspace_file", {"path": "bin.dat"}),
    ("read_workspace_file", {"path": "big.txt"}),
    ("list_workspace_files", {"path": "."}),
    ("list_workspace_files", {"path": "dir"}),
    ("workspace_path_exists", {"path": "a.txt"}),
    ("workspace_path_exists", {"path": "nope"}),
    ("run_shell_command", {"cmd": "echo hi; echo err >&2; exit 3"}),
    ("run_shell_command", {"cmd": 'printf "[%s]" "$RATH_IDEMPOTENCY_KEY"'}),
    ("run_shell_command", {"cmd": "head -c 3000 /dev/zero | tr '\\0' x"}),
    ("run_code", {"code": "print(1)"}),
    ("run_code", {"code": "import sys; print('out'); sys.exit('boom')"}),
    # Each failure kind.
    ("read_workspace_file", {"path": "missing.txt"}),
    ("read_workspace_file", {"path": "dir"}),
    ("list_workspace_files", {"path": "a.txt"}),
    ("read_workspace_file", {"path": "../outside.txt"}),
    ("read_workspace_file", {"path": "/etc/hostname"}),
    ("read_workspace_file", {"path": "escape"}),
    ("write_workspace_file", {"path": "a.txt/x", "content": "x"}),
    ("read_workspace_file", {"path": "a.txt", "encoding": "no-such-codec"}),
    ("run_shell_command", {"cmd": "sleep 30"}),
    ("run_code", {"code": "import time; time.sleep(30)", "timeout": 0.5}),
    ("run_code", {"code": "puts 1", "language": "ruby"}),
    ("run_shell_command", {"cmd": "echo a\necho b"}),
    ("run_shell_command", {"cmd": "x" * 2049}),
    ("run_shell_command", {"cmd": "   "}),
    ("read_workspace_file", {}),
    ("read_workspace_file", {"path": 3}),
    ("workspace_path_exists", {"path": "a.txt", "extra": 1}),
    ("write_workspace_file", {"path": "d.txt", "content": 3}),
]
SANDBOX: dict[str, Any] = {"timeout": timedelta(seconds=3), "max_output_bytes": 1024}


def _workspace(root: Path) -> Path:
    """A workspace with a text file, bytes, a big file, a folder and a link out of it."""
    (root / "outside.txt").write_text("outside")
    workspace = root / "ws"
    (workspace / "dir").mkdir(parents=True)
    (workspace / "a.txt").write_text("hello")
    (workspace / "dir" / "b.txt").write_text("b")
    (workspace / "bin.dat").write_bytes(b"\xff\xfeok")
    (workspace / "big.txt").write_text("y" * 2000)
    (workspace / "escape").symlink_to(root / "outside.txt")
    return workspace


def _body(text: str, ok: bool) -> dict[str, Any]:
    return {"ok": ok, "body": json.loads(text)}


async def test_builtin_tool_bodies_on_the_durable_path(tmp_path: Path) -> None:
    sandbox = LocalSandbox(BackendSandboxSpec(working_dir=str(_workspace(tmp_path)), **SANDBOX))
    async with sandbox:
        golden = []
        for name, arguments in [*TOOL_CALLS, ("no_such_tool", {})]:
            outcome = await run_builtin(sandbox, name, arguments, idempotency_key="key-1")
            golden.append([name, arguments, _body(outcome.body, outcome.ok)])
    check_golden("tools_durable", Stable(tmp_path)(golden))


async def test_builtin_tool_bodies_through_openraths_classes(tmp_path: Path) -> None:
    spec = BackendSandboxSpec(working_dir=str(_workspace(tmp_path)), **SANDBOX)
    session = Session.from_user_message("go").to("local", spec=spec)
    tools = global_system_tools()
    golden = []
    for name, arguments in TOOL_CALLS:
        body, ok = await run_tool_call(tools[name], session, arguments)
        golden.append([name, arguments, _body(body, ok)])
    # The helpers' own keywords, rendered as a tool's return value is.
    helpers = {
        "command with cwd, env and stdin": flow_tool_command_run(
            session, ["cat", "-"], cwd="dir", env={"X": "1"}, stdin=b"piped"
        ),
        "bytes written with a mode": flow_tool_files_write(
            session, "m.bin", b"\x00\x01", mode=0o600
        ),
        "raw read": flow_tool_files_read(session, "bin.dat", encoding=None),
        "exists": flow_tool_files_exists(session, "m.bin"),
        "listing": flow_tool_files_list(session, "dir"),
        "code": flow_tool_code_run(session, "print(2)", timeout=5),
    }
    rendered = {what: json.loads(result_body(value)) for what, value in helpers.items()}
    check_golden("tools_openrath", Stable(tmp_path)({"calls": golden, "helpers": rendered}))


# --- Session and placement JSON ----------------------------------------------------------------


def test_session_and_placement_json(tmp_path: Path) -> None:
    user = Session.from_user_message("hi")
    prompt = Session.from_agent_prompt("You are terse.")
    used = Session.from_user_message("u")
    used.cumulative_usage = RathLLMTokenUsage(3, 2, 5)
    docker = BackendSandboxSpec(
        backend="docker",
        image="python:3.12-slim",
        env={"A": "1"},
        timeout=timedelta(seconds=30),
        max_output_bytes=4096,
        limits=SandboxLimits(memory_mb=256, pids=64, cpus=0.5, file_size_mb=8),
    )
    openrath = BackendSandboxSpec(
        working_dir=str(tmp_path / "ws2"), timeout=timedelta(seconds=30), env={"B": "2"}
    )
    sessions = {
        "user message": user,
        "agent prompt": prompt,
        "system row": Session.create("system", "x"),
        "fork": user.fork(),
        "merge": user.merge(prompt),
        "usage": used,
        "local, a folder": Session.from_user_message("x").to("local", spec=tmp_path / "ws"),
        "local, allocated": Session.from_user_message("x").to("local"),
        "docker, every field": Session.from_user_message("x").to("docker", spec=docker),
        "OpenRath's spec": Session.from_user_message("x").to("local", spec=openrath),
    }
    converter = pydantic_data_converter.payload_converter
    for session in sessions.values():
        # What Temporal carries is the same JSON, and reads back as an equal value.
        (payload,) = converter.to_payloads([session])
        assert json.loads(payload.data) == session.model_dump(mode="json")
        assert converter.from_payloads([payload], [Session]) == [session]
        if session.sandbox is not None:
            (placement,) = converter.to_payloads([session.sandbox])
            assert converter.from_payloads([placement], [Placement]) == [session.sandbox]
    dumps = {name: session.model_dump(mode="json") for name, session in sessions.items()}
    check_golden("session_json", Stable(tmp_path)(dumps))
