"""A loopback HTTP server on a daemon thread: what fake servers share. See docs/modules.md."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self


class LoopbackServer:
    """Start, stop and connection bookkeeping of a fake server (use as a context manager)."""

    __test__ = False
    handler_class: ClassVar[type[BaseHTTPRequestHandler]]

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port of the running server."""
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not running; call start() first")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The URL clients are given (subclasses add their API's path)."""
        return f"http://{self._host}:{self.port}"

    def start(self) -> Self:
        """Bind the socket and serve on a daemon thread; returns ``self``."""
        if self._httpd is not None:
            return self
        httpd = _HTTPServer((self._host, self._port), self.handler_class)
        httpd.owner = self
        self._httpd = httpd
        # serve_forever notices shutdown() only between polls: a short interval keeps stop() fast.
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{type(self).__name__}:{self.base_url}",
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

    def wait_until_disconnected(self, timeout: float = 10.0) -> None:
        """Block until no client holds a connection open (keep-alive ones included).

        Raises:
            TimeoutError: A connection was still open after ``timeout`` seconds.
        """
        if self._httpd is None:
            return
        if not self._httpd.wait_until_idle(timeout):
            raise TimeoutError(
                f"{type(self).__name__}: {self._httpd.open_connections} client connection(s) "
                f"still open after {timeout}s"
            )

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class LoopbackHandler(BaseHTTPRequestHandler):
    """A fake server's request handler: quiet, and replying with JSON or bytes."""

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def send_json(self, status: int, body: Any, headers: Iterable[tuple[str, str]] = ()) -> None:
        """Reply with ``body`` as JSON."""
        self.send_bytes(status, json.dumps(body).encode(), "application/json", headers)

    def send_bytes(
        self,
        status: int,
        data: bytes,
        content_type: str,
        headers: Iterable[tuple[str, str]] = (),
        truncate: float | None = None,
    ) -> None:
        """Reply with ``data``; with ``truncate`` (a fraction), only that part of it, then close."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if truncate is None:
            self.wfile.write(data)
            return
        # Full Content-Length, part of the body, then close: a response that ends early.
        self.wfile.write(data[: int(len(data) * truncate)])
        self.wfile.flush()
        self.close_connection = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: Any

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Condition()

    @property
    def open_connections(self) -> int:
        with self._open_lock:
            return len(self._open)

    def wait_until_idle(self, timeout: float) -> bool:
        with self._open_lock:
            return self._open_lock.wait_for(lambda: not self._open, timeout=timeout)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
            self._open_lock.notify_all()
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """Cut open connections, so idle keep-alive clients cannot reach a stopped server."""
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
