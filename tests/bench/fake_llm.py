"""A zero-latency fake LLM in its own process (so it does not share the benchmark's GIL).

``python tests/bench/fake_llm.py ROUNDS [LATENCY_SECONDS [TOOL]]`` prints its base URL, then
serves until stdin closes. Each request gets one tool call until the transcript holds
``ROUNDS - 1`` tool results, then a final text answer; every reply takes ``LATENCY_SECONDS``
(default 0), concurrently for concurrent requests. ``TOOL`` is ``workspace_path_exists``
(the default: ``{"path": "x"}``) or ``write_workspace_file`` (``{"path": "notes/N.txt",
"content": ...}``, a new file each round: P5's file writes, which every contender offers
under that name).
"""

from __future__ import annotations

import sys
import time

from rath.testing import (
    FakeChatServer,
    RecordedRequest,
    Reply,
    ToolCallSpec,
    text_reply,
    tool_call_reply,
)

NOTE = "observation: the quick brown fox jumps over the lazy dog. " * 4
"""What each file write writes (about 240 bytes, a short note)."""


def main() -> None:
    """Serve until stdin closes."""
    rounds = int(sys.argv[1])
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    tool = sys.argv[3] if len(sys.argv) > 3 else "workspace_path_exists"
    if tool not in ("workspace_path_exists", "write_workspace_file"):
        raise SystemExit(
            f"fake_llm.py: unknown TOOL {tool!r}: use workspace_path_exists or write_workspace_file"
        )

    def handler(request: RecordedRequest) -> Reply:
        if latency:
            time.sleep(latency)  # a model's think time: the server is threaded
        done = sum(1 for message in request.messages if message.get("role") == "tool")
        if done >= rounds - 1:
            return text_reply("done")
        if tool == "write_workspace_file":
            # A new call id each round: the Agents SDK refuses a reused one.
            args = {"path": f"notes/{done}.txt", "content": NOTE}
            return tool_call_reply(ToolCallSpec(tool, args, id=f"call_{done}"))
        return tool_call_reply((tool, {"path": "x"}))

    with FakeChatServer(handler) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
