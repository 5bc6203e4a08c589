"""An HTTP relay on loopback that answers 503 to its first requests, then forwards them."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class _Relay(BaseHTTPRequestHandler):
    server: FlakyRelay

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _handle(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.server.take_failure():
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        target = http.client.HTTPConnection(self.server.target, timeout=10)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
            target.request(self.command, self.path, body=body, headers=headers)
            answer = target.getresponse()
            data = answer.read()
        finally:
            target.close()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _handle


class FlakyRelay(ThreadingHTTPServer):
    """Relays to ``target`` (``host:port``); the first ``failures`` requests get a 503."""

    def __init__(self, target: str, failures: int) -> None:
        super().__init__(("127.0.0.1", 0), _Relay)
        self.target = target
        self.failures = failures
        self.failed = 0
        self._lock = threading.Lock()

    def take_failure(self) -> bool:
        with self._lock:
            if self.failed < self.failures:
                self.failed += 1
                return True
            return False

    @property
    def endpoint(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


@contextmanager
def flaky_relay(endpoint: str, failures: int) -> Iterator[FlakyRelay]:
    """Run a :class:`FlakyRelay` in front of ``endpoint`` (``http://host:port``)."""
    relay = FlakyRelay(urlsplit(endpoint).netloc, failures)
    thread = threading.Thread(target=relay.serve_forever, daemon=True)
    thread.start()
    try:
        yield relay
    finally:
        relay.shutdown()
        relay.server_close()
        thread.join(timeout=10)
