"""An MCP tool result rendered as the TOOL_RESULT body the model reads.

See docs/mcp.md, "Where the code is".
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rath.tools.bodies import dumps, error_body
from rath.tools.builtins import ToolOutcome

if TYPE_CHECKING:
    from mcp_types import CallToolResult

DEFAULT_MAX_OUTPUT_BYTES = 65536
"""The same cap as a sandbox's default ``max_output_bytes`` for built-in tools."""


def render_result(result: CallToolResult, max_bytes: int = DEFAULT_MAX_OUTPUT_BYTES) -> ToolOutcome:
    """The body and ``ok`` flag for one ``tools/call`` result."""
    parts = [_render_block(block) for block in result.content]
    text = "\n".join(parts)
    if not parts and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    if result.is_error:
        message, truncated = _cap(text or "the tool reported an error", max_bytes)
        if truncated:
            message += " [truncated]"
        return ToolOutcome(error_body("mcp_tool_error", message), False)
    if not parts:  # OpenRath's: the structured content itself, else {"ok": true}
        structured = result.structured_content
        return ToolOutcome(dumps(structured if structured is not None else {"ok": True}), True)
    text, truncated = _cap(text, max_bytes)
    body: dict[str, Any] = {"text": text}
    if truncated:
        body["truncated"] = True
    return ToolOutcome(dumps(body), True)


def _render_block(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} {block.mime_type}, {_decoded_size(block.data)} bytes not shown]"
    if kind == "resource":
        resource = block.resource
        mime = getattr(resource, "mime_type", None) or "unknown type"
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {resource.uri} ({mime})]\n{text}"
        blob = getattr(resource, "blob", "")
        return f"[resource {resource.uri} ({mime}), {_decoded_size(blob)} bytes not shown]"
    if kind == "resource_link":
        name = getattr(block, "name", None)
        return f"[resource link {block.uri}{f' ({name})' if name else ''}]"
    return f"[{kind or 'unknown'} content not shown]"


def _decoded_size(data: str) -> int:
    """The byte size of base64 ``data`` (without decoding it)."""
    stripped = data.rstrip("=")
    return len(stripped) * 3 // 4


def _cap(text: str, max_bytes: int) -> tuple[str, bool]:
    raw = text.encode("utf-8")
    if len(raw) <= max_bytes:
        return text, False
    return raw[:max_bytes].decode("utf-8", errors="ignore"), True
