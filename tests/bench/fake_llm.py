"""A zero-latency fake LLM in its own process (so it does not share the benchmark's GIL).

``python tests/bench/fake_llm.py ROUNDS [LATENCY_SECONDS]`` prints its base URL, then serves
until stdin closes. Each request gets a ``workspace_path_exists`` tool call until the
transcript holds ``ROUNDS - 1`` tool results, then a final text answer; every reply takes
``LATENCY_SECONDS`` (default 0), concurrently for concurrent requests.
"""

from __future__ import annotations

import sys
import time

from rath.testing import FakeChatServer, RecordedRequest, Reply, text_reply, tool_call_reply


def main() -> None:
    """Serve until stdin closes."""
    rounds = int(sys.argv[1])
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0

    def handler(request: RecordedRequest) -> Reply:
        if latency:
            time.sleep(latency)  # a model's think time: the server is threaded
        done = sum(1 for message in request.messages if message.get("role") == "tool")
        if done >= rounds - 1:
            return text_reply("done")
        return tool_call_reply(("workspace_path_exists", {"path": "x"}))

    with FakeChatServer(handler) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
