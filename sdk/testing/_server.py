"""Real HTTP servers on loopback speaking a model provider's wire protocol. See docs/modules.md."""

from __future__ import annotations

import json
import sys
import threading
import traceback
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, cast

from rath.testing._anthropic_wire import AnthropicWire
from rath.testing._loopback import LoopbackHandler, LoopbackServer
from rath.testing._openai_wire import OpenAIWire
from rath.testing._replies import Handler, RecordedRequest, Reply, as_handler, error_reply


class Wire(Protocol):
    """How one provider's protocol looks: its paths and its JSON and event encodings."""

    base_path: str
    post_paths: tuple[str, ...]
    models_paths: tuple[str, ...]

    def accepts(self, path: str) -> bool:
        """Whether a ``POST`` to ``path`` is a model request on this wire."""
        ...

    def body(self, reply: Reply, model: str) -> dict[str, Any]:
        """The JSON body of a completion reply."""
        ...

    def events(self, reply: Reply, model: str, request: dict[str, Any]) -> list[bytes]:
        """The server-sent-event frames of a streamed completion reply."""
        ...

    def error(self, status: int, message: str) -> dict[str, Any]:
        """The JSON body of an error reply."""
        ...

    def models(self, model: str) -> dict[str, Any]:
        """The JSON body of the models listing."""
        ...


class _RequestHandler(LoopbackHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle's algorithm on, a keep-alive
    # client's delayed ACK would add ~40 ms to every reply.
    disable_nagle_algorithm = True

    @property
    def owner(self) -> FakeServer:
        return cast(FakeServer, cast(Any, self.server).owner)

    def do_GET(self) -> None:
        """Serve the models listing."""
        wire = self.owner.wire
        if self.path.split("?")[0] not in wire.models_paths:
            self._send_reply(error_reply(404, f"unknown path {self.path}"))
            return
        self.send_json(200, wire.models(self.owner.model))

    def do_POST(self) -> None:
        """Serve a completion request: record it, ask the handler, send its reply."""
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        path = self.path.split("?")[0]
        if not self.owner.wire.accepts(path):
            self._send_reply(error_reply(404, f"unknown path {self.path}"))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._send_reply(error_reply(400, "request body is not a JSON object"))
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        query = self.path.partition("?")[2]
        request = RecordedRequest(path=path, headers=headers, body=body, query=query)
        self.owner._record(request)
        name = type(self.owner).__name__
        try:
            reply = self.owner.handler(request)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            reply = error_reply(500, f"{name} handler raised {exc!r}")
        if reply.gate is not None and not reply.gate.wait(reply.gate_timeout):
            reply = error_reply(500, f"{name}: gate not opened in {reply.gate_timeout}s")
        if reply.hang_up:
            self.close_connection = True  # closed with no status line, headers or body
            return
        try:
            if reply.raw is None and reply.error is None and body.get("stream"):
                model = request.model or self.owner.model
                self._send_stream(reply, self.owner.wire.events(reply, model, body))
            else:
                self._send_reply(reply, request.model or self.owner.model)
        except OSError:
            self.close_connection = True  # the client gave up; nothing to answer

    def _send_reply(self, reply: Reply, model: str | None = None) -> None:
        wire = self.owner.wire
        if reply.raw is not None:
            data, content_type = reply.raw, reply.content_type
        elif reply.error is not None:
            data, content_type = (
                json.dumps(wire.error(reply.status, reply.error)).encode(),
                "application/json",
            )
        else:
            data = json.dumps(wire.body(reply, model or self.owner.model)).encode()
            content_type = "application/json"
        self.send_bytes(reply.status, data, content_type, reply.headers, reply.truncate)

    def _send_stream(self, reply: Reply, frames: list[bytes]) -> None:
        # No Content-Length: the stream ends when the connection closes.
        self.close_connection = True
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        if reply.truncate is not None:
            frames = frames[: int(len(frames) * reply.truncate)]
        for frame in frames:
            self.wfile.write(frame)
            self.wfile.flush()


class FakeServer(LoopbackServer):
    """A scripted fake model server on a background thread; subclasses pick the wire."""

    wire: ClassVar[Wire]
    handler_class = _RequestHandler

    def __init__(
        self,
        handler: Handler | Sequence[Reply],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "fake-model",
    ) -> None:
        super().__init__(host=host, port=port)
        self.handler: Handler = as_handler(handler)
        self.model = model
        self.requests: list[RecordedRequest] = []
        self._arrived = threading.Condition()

    @property
    def base_url(self) -> str:
        """The SDK ``base_url`` of the running server (OpenAI's ends in ``/v1``)."""
        return f"{super().base_url}{self.wire.base_path}"

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> None:
        """Block until at least ``n`` requests have arrived (been recorded).

        Raises:
            TimeoutError: Fewer than ``n`` requests arrived within ``timeout``.
        """
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.requests) >= n, timeout=timeout):
                raise TimeoutError(
                    f"{type(self).__name__}: expected {n} request(s) within {timeout}s, "
                    f"got {len(self.requests)}"
                )

    def _record(self, request: RecordedRequest) -> None:
        with self._arrived:
            self.requests.append(request)
            self._arrived.notify_all()


class FakeChatServer(FakeServer):
    """A scripted fake OpenAI-compatible chat server (Chat Completions, JSON and streaming)."""

    wire: ClassVar[Wire] = OpenAIWire()


class FakeAnthropicServer(FakeServer):
    """A scripted fake Anthropic Messages server (``POST /v1/messages``, JSON and streaming)."""

    wire: ClassVar[Wire] = AnthropicWire()
