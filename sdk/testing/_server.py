"""A real HTTP server on loopback speaking the OpenAI Chat Completions wire protocol."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import traceback
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast

from rath.testing._replies import (
    Handler,
    RecordedRequest,
    Reply,
    as_handler,
    completion_body,
    error_reply,
    stream_chunks,
)

_COMPLETION_PATHS = ("/v1/chat/completions", "/chat/completions")
_MODELS_PATHS = ("/v1/models", "/models")


class FakeChatServer:
    """A scripted fake OpenAI-compatible chat server on a background thread.

    Each request is recorded in :attr:`requests` before the handler runs; the handler's
    :class:`Reply` is then sent as JSON, or as server-sent events when the request streams.
    Each connection is served on its own daemon thread, so a handler may block.

    Example::

        with FakeChatServer([text_reply("hi")]) as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)

    Args:
        handler: A function from request to reply, or a sequence of replies to give in order
            (a request beyond the sequence gets HTTP 500 "script exhausted").
        host: The address to bind.
        port: The port to bind; 0 picks a free one.
        model: The model id listed by ``GET /v1/models`` and echoed when a request names none.
    """

    __test__ = False

    def __init__(
        self,
        handler: Handler | Sequence[Reply],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "fake-model",
    ) -> None:
        self.handler: Handler = as_handler(handler)
        self.model = model
        self.requests: list[RecordedRequest] = []
        self._host = host
        self._port = port
        self._arrived = threading.Condition()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url`` of the running server, ``http://<host>:<port>/v1``."""
        if self._httpd is None:
            raise RuntimeError("FakeChatServer is not running; call start() first")
        return f"http://{self._host}:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeChatServer:
        """Bind the socket and serve on a daemon thread; returns ``self``."""
        if self._httpd is not None:
            return self
        httpd = _HTTPServer((self._host, self._port), _RequestHandler)
        httpd.owner = self
        self._httpd = httpd
        # serve_forever notices shutdown() only between polls: a short interval keeps stop() fast.
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"FakeChatServer:{self.base_url}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket (idempotent)."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        httpd.drop_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> None:
        """Block until at least ``n`` requests have arrived (been recorded).

        Args:
            n: The number of requests to wait for.
            timeout: Upper bound on the wait, in seconds.

        Raises:
            TimeoutError: Fewer than ``n`` requests arrived within ``timeout``.
        """
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.requests) >= n, timeout=timeout):
                raise TimeoutError(
                    f"FakeChatServer: expected {n} request(s) within {timeout}s, "
                    f"got {len(self.requests)}"
                )

    def _record(self, request: RecordedRequest) -> None:
        with self._arrived:
            self.requests.append(request)
            self._arrived.notify_all()

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeChatServer

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """Cut open connections, so idle keep-alive clients cannot reach a stopped server."""
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle's algorithm on, a keep-alive
    # client's delayed ACK would add ~40 ms to every reply.
    disable_nagle_algorithm = True

    @property
    def owner(self) -> FakeChatServer:
        return cast(_HTTPServer, self.server).owner

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        """Serve ``GET /v1/models``."""
        if self.path.split("?")[0] not in _MODELS_PATHS:
            self._send_reply(error_reply(404, f"unknown path {self.path}"))
            return
        model = {"id": self.owner.model, "object": "model", "created": 0, "owned_by": "rath"}
        self._send_json(200, {"object": "list", "data": [model]})

    def do_POST(self) -> None:
        """Serve ``POST /v1/chat/completions``."""
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        path = self.path.split("?")[0]
        if path not in _COMPLETION_PATHS:
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
        request = RecordedRequest(path=path, headers=headers, body=body)
        self.owner._record(request)
        try:
            reply = self.owner.handler(request)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            reply = error_reply(500, f"FakeChatServer handler raised {exc!r}")
        if reply.gate is not None and not reply.gate.wait(reply.gate_timeout):
            reply = error_reply(500, f"FakeChatServer: gate not opened in {reply.gate_timeout}s")
        model = request.model or self.owner.model
        try:
            if reply.raw is None and body.get("stream"):
                options = body.get("stream_options") or {}
                self._send_stream(reply, model, bool(options.get("include_usage")))
            elif reply.raw is None:
                self._send_json(reply.status, completion_body(reply, model))
            else:
                self._send_reply(reply)
        except OSError:
            self.close_connection = True  # the client gave up; nothing to answer

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        self._send_bytes(status, json.dumps(body).encode(), "application/json", ())

    def _send_reply(self, reply: Reply) -> None:
        self._send_bytes(reply.status, reply.raw or b"", reply.content_type, reply.headers)

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: Sequence[tuple[str, str]]
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, reply: Reply, model: str, include_usage: bool) -> None:
        # No Content-Length: the stream ends when the connection closes.
        self.close_connection = True
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        for chunk in stream_chunks(reply, model, include_usage):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
