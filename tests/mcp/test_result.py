"""Rendering MCP results as tool bodies: every content kind, errors, caps."""

from __future__ import annotations

import json

from mcp_types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from rath.tools.mcp import render_result


def body(result: CallToolResult, **kwargs: int) -> tuple[dict[str, object], bool]:
    outcome = render_result(result, **kwargs)
    return json.loads(outcome.body), outcome.ok


def test_content_blocks_in_order_with_non_text_summarised() -> None:
    result = CallToolResult(
        content=[
            TextContent(text="first"),
            ImageContent(data="aGVsbG8=", mime_type="image/png"),
            EmbeddedResource(
                resource=TextResourceContents(
                    uri="file:///a.txt", text="inside", mime_type="text/plain"
                )
            ),
            EmbeddedResource(
                resource=BlobResourceContents(
                    uri="file:///b.bin", blob="AAAA", mime_type="application/zip"
                )
            ),
            ResourceLink(uri="file:///c", name="c"),
        ]
    )
    assert body(result) == (
        {
            "text": "first\n[image image/png, 5 bytes not shown]\n"
            "[resource file:///a.txt (text/plain)]\ninside\n"
            "[resource file:///b.bin (application/zip), 3 bytes not shown]\n"
            "[resource link file:///c (c)]"
        },
        True,
    )


def test_structured_only_empty_and_error_results() -> None:
    structured = {"n": 1, "items": [{"id": "a"}]}  # kept as structure, as OpenRath does
    assert body(CallToolResult(content=[], structured_content=structured)) == (structured, True)
    assert body(CallToolResult(content=[])) == ({"ok": True}, True)
    error, ok = body(CallToolResult(content=[TextContent(text="nope")], is_error=True))
    assert not ok and error == {"ok": False, "error_kind": "mcp_tool_error", "message": "nope"}
    error, ok = body(CallToolResult(content=[], is_error=True))
    assert not ok and error["message"] == "the tool reported an error"


def test_output_is_capped_in_utf8_bytes() -> None:
    result = CallToolResult(content=[TextContent(text="é" * 100)])
    capped, ok = body(result, max_bytes=11)
    assert ok and capped == {"text": "é" * 5, "truncated": True}


def test_an_error_result_is_capped_too() -> None:
    """A tool that fails with a 10 MB traceback must not put it all into the transcript."""
    result = CallToolResult(content=[TextContent(text="x" * 10_000_000)], is_error=True)
    error, ok = body(result, max_bytes=64)
    assert not ok and error["message"] == "x" * 64 + " [truncated]"
