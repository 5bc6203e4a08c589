"""A stalled stream ends the attempt (retryable); a slow but steady one is never cut off.

The server here is a real HTTP server on 127.0.0.1 sending OpenAI's server-sent events with
pauses between them: the pauses are the model's pace under test, not synchronisation.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from wires import HELLO

from rath.errors import ConfigError
from rath.llm import Provider, ProviderError
from rath.llm.aio import async_chat_client_for
from rath.llm.chat_response import RathLLMChatResponse

IDLE = 1.0


def _frame(content: str | None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


class _Paced(BaseHTTPRequestHandler):
    """Sends ``server.words`` one frame each, ``server.gap`` seconds apart, then maybe stalls."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        server = self.server
        for word in server.words:  # type: ignore[attr-defined]
            self.wfile.write(_frame(word))
            self.wfile.flush()
            time.sleep(server.gap)  # type: ignore[attr-defined]
        if server.stall.is_set():  # type: ignore[attr-defined]
            server.release.wait(30)  # type: ignore[attr-defined]  # silent, connection open
            return
        self.wfile.write(_frame(None, "stop") + b"data: [DONE]\n\n")
        self.wfile.flush()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def paced() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Paced)
    server.stall, server.release = threading.Event(), threading.Event()  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.release.set()  # type: ignore[attr-defined]
    server.shutdown()


def _stream(server: ThreadingHTTPServer) -> tuple[RathLLMChatResponse, list[object]]:
    provider = Provider(model="m", base_url=f"http://127.0.0.1:{server.server_port}/v1")
    deltas: list[object] = []

    async def run() -> RathLLMChatResponse:
        client = async_chat_client_for(provider)
        try:
            return await client.astream(HELLO, deltas.append)
        finally:
            await client.aclose()

    return asyncio.run(run()), deltas


def test_a_stream_silent_for_the_idle_time_is_a_retryable_failure(
    paced: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_STREAM_IDLE_SECONDS", str(IDLE))
    paced.words, paced.gap = ["Hel"], 0.0  # type: ignore[attr-defined]
    paced.stall.set()  # type: ignore[attr-defined]
    with pytest.raises(ProviderError) as info:
        _stream(paced)
    assert info.value.retryable
    assert "sent nothing for 1s mid-stream" in str(info.value)
    assert "RATH_STREAM_IDLE_SECONDS" in str(info.value)


def test_a_slow_steady_stream_is_never_cut_off(
    paced: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_STREAM_IDLE_SECONDS", str(IDLE))
    paced.words, paced.gap = ["a", "b", "c", "d", "e"], IDLE / 3  # type: ignore[attr-defined]
    completion, deltas = _stream(paced)  # ~1.7 s in all, more than the idle time
    assert completion.primary_choice.message.content == "abcde"
    assert len(deltas) >= 5


def test_the_idle_time_must_be_a_positive_number(
    paced: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_STREAM_IDLE_SECONDS", "soon")
    with pytest.raises(ConfigError, match="RATH_STREAM_IDLE_SECONDS must be a positive"):
        _stream(paced)
