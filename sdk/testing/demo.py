"""Rath's offline demo model: a scripted, rule-based stand-in for an LLM. See docs/modules.md."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any

from rath.testing import FakeChatServer, RecordedRequest, Reply, text_reply, tool_call_reply

__all__ = ["DEMO_MODEL", "demo_base_url", "demo_handler"]

DEMO_MODEL = "rath-demo"
"""The model name of the offline demo model."""

_LABEL = "[rath demo model] "
_WRITE, _READ, _LIST = "write_workspace_file", "read_workspace_file", "list_workspace_files"
_FILE = r"(?P<file>[\w./-]+\.\w+)"
_CREATE_RE = re.compile(rf"\b(?:create|write)\b.*?{_FILE}", re.IGNORECASE)
_READ_RE = re.compile(rf"\bread\b(?:\s+(?:the\s+file\s+)?{_FILE})?", re.IGNORECASE)
_LIST_RE = re.compile(r"\blist\b", re.IGNORECASE)
_USE_RE = re.compile(r"\buse\s+(?P<tool>[A-Za-z0-9_-]+)\s+with\s+(?P<args>\{.*?\})", re.DOTALL)
_TEXT_RE = re.compile(r"\b(?:saying|containing|with(?:\s+the\s+text)?)\s+", re.IGNORECASE)
_QUOTED_RE = re.compile(r"([\"'\u201c\u2018])(?P<text>.*?)[\"'\u201d\u2019]", re.DOTALL)
_UNQUOTED_RE = re.compile(r"(?P<text>.*?)(?=,\s*then\b|\.\s|\.$|$)", re.IGNORECASE | re.DOTALL)
_DEFAULT_CONTENT = "hello from rath"

_servers: list[FakeChatServer] = []  # at most one: the process-wide demo server
_server_lock = threading.Lock()


@dataclass(frozen=True)
class _ToolResult:
    name: str
    arguments: dict[str, Any]
    body: Any  # the parsed JSON result, or the raw text when it is not JSON


def demo_base_url() -> str:
    """Start the process-wide demo model server once, and return its OpenAI ``base_url``."""
    with _server_lock:
        if not _servers:
            _servers.append(FakeChatServer(demo_handler, model=DEMO_MODEL).start())
        return _servers[0].base_url


def demo_handler(request: RecordedRequest) -> Reply:
    """Answer one chat-completions request as the demo model."""
    user_index, user_text = _last_user_message(request.messages)
    results = _tool_results(request.messages[user_index + 1 :])
    done = {result.name for result in results}
    offered = {str(tool.get("function", {}).get("name")) for tool in request.tools}
    prompt_tokens = _tokens(json.dumps(request.messages))

    create = _CREATE_RE.search(user_text)
    read = _READ_RE.search(user_text)
    file = create["file"] if create else (read["file"] if read else None)
    if create and _WRITE not in offered:
        pass  # cannot create the file: answer in text rather than read a file that is not there
    elif create and _WRITE not in done:
        args = {"path": create["file"], "content": _requested_text(user_text, create.end())}
        return _call(_WRITE, args, prompt_tokens)
    elif read and file and _READ in offered and _READ not in done:
        return _call(_READ, {"path": file}, prompt_tokens)
    elif _LIST_RE.search(user_text) and _LIST in offered and _LIST not in done:
        return _call(_LIST, {"path": "."}, prompt_tokens)
    for use in _USE_RE.finditer(user_text):  # "use TOOL with {json}": any offered tool
        arguments = _loads(use["args"])
        if use["tool"] in offered and use["tool"] not in done and isinstance(arguments, dict):
            return _call(use["tool"], arguments, prompt_tokens)

    if results:
        text = _LABEL + " ".join(_describe(result, results) for result in results)
    else:
        text = (
            f"{_LABEL}This is Rath's offline scripted demo model, not a real LLM. "
            f'You said: "{user_text}". '
            "Set OPENAI_API_KEY (or Provider(base_url=...)) to use a real model."
        )
        system = [m for m in request.messages if m.get("role") == "system"]
        if system:
            text += f' My instructions: "{_clip(_text_of(system[0].get("content")), 80)}".'

    return text_reply(text, usage=(prompt_tokens, _tokens(text)))


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _call(name: str, args: dict[str, Any], prompt_tokens: int) -> Reply:
    return tool_call_reply((name, args), usage=(prompt_tokens, _tokens(json.dumps(args))))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _last_user_message(messages: list[dict[str, Any]]) -> tuple[int, str]:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            return index, _text_of(messages[index].get("content")).strip()
    return -1, ""


def _requested_text(user_text: str, start: int) -> str:
    marker = _TEXT_RE.match(user_text, start) or _TEXT_RE.search(user_text, start)
    if marker is None:
        return _DEFAULT_CONTENT
    quoted = _QUOTED_RE.match(user_text, marker.end())
    found = quoted or _UNQUOTED_RE.match(user_text, marker.end())
    text = found["text"].strip() if found else ""
    return text or _DEFAULT_CONTENT


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _tool_results(messages: list[dict[str, Any]]) -> list[_ToolResult]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    results: list[_ToolResult] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            args = _loads(function.get("arguments") or "{}")
            calls[call.get("id", "")] = (
                function.get("name", ""),
                args if isinstance(args, dict) else {},
            )
        if message.get("role") == "tool":
            name, args = calls.get(message.get("tool_call_id", ""), ("a tool", {}))
            results.append(_ToolResult(name, args, _loads(_text_of(message.get("content")))))
    return results


def _clip(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(result: _ToolResult, results: list[_ToolResult]) -> str:
    body, path = result.body, result.arguments.get("path", "?")
    if isinstance(body, dict) and isinstance(body.get("result"), dict):
        body = body["result"]  # tolerate an {"ok": true, "result": {...}} envelope
    if not isinstance(body, dict):
        return f"{result.name} returned: {_clip(body)}."
    if body.get("ok") is False or "error_kind" in body:
        kind = body.get("error_kind", "error")
        return f"{result.name} failed ({kind}): {body.get('message', 'no message')}."
    if "bytes_written" in body:
        return f"Wrote {path} ({body['bytes_written']} bytes)."
    if "data" in body:
        written = any(r.name == _WRITE and r.arguments.get("path") == path for r in results)
        label = "Read it back" if written else f"Read {path}"
        return f'{label}: "{_clip(body["data"])}".'
    if "entries" in body:
        names = [
            str(e.get("name") or e.get("path")) if isinstance(e, dict) else str(e)
            for e in body["entries"]
        ]
        return f"Files in {path}: {', '.join(names) or '(none)'}."
    return f"{result.name} returned: {_clip(body)}."
