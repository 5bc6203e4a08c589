"""The offline demo model, driven through the official openai SDK over loopback HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from rath.testing import FakeChatServer, RecordedRequest
from rath.testing.demo import DEMO_MODEL, demo_base_url, demo_handler

LABEL = "[rath demo model] "


def tool(name: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": {}}},
    }


TOOLS = [tool("write_workspace_file"), tool("read_workspace_file"), tool("list_workspace_files")]


@pytest.fixture(scope="module")
def client() -> Iterator[openai.OpenAI]:
    with FakeChatServer(demo_handler, model=DEMO_MODEL) as server:
        yield openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=10)


def ask(
    client: openai.OpenAI, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> Any:
    kwargs: dict[str, Any] = {"tools": tools} if tools else {}
    completion = client.chat.completions.create(model=DEMO_MODEL, messages=messages, **kwargs)
    message = completion.choices[0].message
    if message.content is not None:
        assert message.content.startswith(LABEL)
    return completion


def run_tool_loop(
    client: openai.OpenAI, prompt: str, results: dict[str, str], max_turns: int = 6
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """Play the agent loop: feed back the canned result for each tool the model calls."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": prompt},
    ]
    calls: list[tuple[str, dict[str, Any]]] = []
    for _ in range(max_turns):
        completion = ask(client, messages, TOOLS)
        message = completion.choices[0].message
        if not message.tool_calls:
            assert completion.choices[0].finish_reason == "stop"
            return calls, message.content
        assert completion.choices[0].finish_reason == "tool_calls"
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            calls.append((call.function.name, json.loads(call.function.arguments)))
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": results[call.function.name]}
            )
    raise AssertionError("demo model never gave a final answer")


def test_readme_flow_write_read_answer(client: openai.OpenAI) -> None:
    results = {
        "write_workspace_file": json.dumps({"bytes_written": 2}),
        "read_workspace_file": json.dumps({"data": "hi"}),
    }
    calls, answer = run_tool_loop(client, "Create notes.txt saying hi, then read it back.", results)
    assert calls == [
        ("write_workspace_file", {"path": "notes.txt", "content": "hi"}),
        ("read_workspace_file", {"path": "notes.txt"}),
    ]
    assert answer == f'{LABEL}Wrote notes.txt (2 bytes). Read it back: "hi".'


@pytest.mark.parametrize(
    ("prompt", "path", "content"),
    [
        (
            'Write docs/todo.md containing "buy milk. eat cake". Thanks',
            "docs/todo.md",
            "buy milk. eat cake",
        ),
        ("please create a file called a.txt with the text hello world.", "a.txt", "hello world"),
        ("Create out.json", "out.json", "hello from rath"),
    ],
)
def test_write_arguments(client: openai.OpenAI, prompt: str, path: str, content: str) -> None:
    messages = [{"role": "user", "content": prompt}]
    call = (ask(client, messages, TOOLS).choices[0].message.tool_calls or [])[0]
    args = json.loads(call.function.arguments)
    assert call.function.name == "write_workspace_file"
    assert args == {"path": path, "content": content}


def test_list_and_error_summary(client: openai.OpenAI) -> None:
    results = {
        "list_workspace_files": json.dumps({"entries": ["notes.txt", {"name": "src"}]}),
        "read_workspace_file": json.dumps(
            {"ok": False, "error_kind": "not_found", "message": "no such file: x.txt"}
        ),
    }
    calls, answer = run_tool_loop(client, "Read x.txt and list the files.", results)
    assert calls == [
        ("read_workspace_file", {"path": "x.txt"}),
        ("list_workspace_files", {"path": "."}),
    ]
    assert "read_workspace_file failed (not_found): no such file: x.txt." in answer
    assert "Files in .: notes.txt, src." in answer


def test_no_tools_fallback(client: openai.OpenAI) -> None:
    completion = ask(client, [{"role": "user", "content": "What is Rath?"}], None)
    text = completion.choices[0].message.content
    assert text.startswith(LABEL + "This is Rath's offline scripted demo model, not a real LLM.")
    assert 'You said: "What is Rath?"' in text
    assert "OPENAI_API_KEY" in text
    assert completion.usage.prompt_tokens >= 1
    assert completion.usage.completion_tokens == len(text) // 4


def test_create_without_write_tool_falls_back_to_text(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "Create notes.txt saying hi, then read it back."}]
    completion = ask(client, messages, [tool("read_workspace_file")])
    assert not completion.choices[0].message.tool_calls
    assert "not a real LLM" in completion.choices[0].message.content


def test_content_parts_and_earlier_turns() -> None:
    old_turn = [
        {"role": "user", "content": "Create old.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "write_workspace_file", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"bytes_written": 1}'},
        {"role": "assistant", "content": "done"},
    ]
    new_user = {"role": "user", "content": [{"type": "text", "text": "Write new.txt saying yo"}]}
    body = {"model": DEMO_MODEL, "messages": [*old_turn, new_user], "tools": TOOLS}
    reply = demo_handler(RecordedRequest("/v1/chat/completions", {}, body))
    assert reply.tool_calls[0][1] == "write_workspace_file"
    assert json.loads(reply.tool_calls[0][2]) == {"path": "new.txt", "content": "yo"}


def test_demo_base_url_is_one_server() -> None:
    url = demo_base_url()
    assert url == demo_base_url()
    assert url.startswith("http://127.0.0.1:")
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=10)
    assert [model.id for model in client.models.list()] == [DEMO_MODEL]
    completion = client.chat.completions.create(
        model=DEMO_MODEL, messages=[{"role": "user", "content": "hi"}]
    )
    assert completion.choices[0].message.content.startswith(LABEL)
