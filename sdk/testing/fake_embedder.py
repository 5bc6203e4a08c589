"""A deterministic fake OpenAI ``/embeddings`` server. See docs/modules.md."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, cast

from rath.testing._loopback import LoopbackHandler, LoopbackServer
from rath.utils.text import words
from rath.utils.vectors import normalized, pack

_EMBEDDING_PATHS = ("/v1/embeddings", "/embeddings")
DEFAULT_DIMENSIONS = 256


def trigram_embedding(text: str, dimensions: int = DEFAULT_DIMENSIONS) -> list[float]:
    """The fake server's vector for ``text``: hashed character trigrams, unit length."""
    vector = [0.0] * dimensions
    for word in words(text):
        padded = f"#{word}#"
        for start in range(max(len(padded) - 2, 1)):
            digest = hashlib.blake2b(padded[start : start + 3].encode(), digest_size=8).digest()
            number = int.from_bytes(digest, "little")
            vector[number % dimensions] += 1.0 if (number >> 63) & 1 else -1.0
    if not any(vector):
        vector[0] = 1.0
    return normalized(vector)


@dataclass(frozen=True, slots=True)
class RecordedEmbeddingRequest:
    """One request the fake server received."""

    path: str
    body: Any
    authorization: str | None


@dataclass(frozen=True, slots=True)
class _Failure:
    status: int
    message: str
    retry_after: float | None


class _Handler(LoopbackHandler):
    # HTTP/1.0: one request per connection, so no keep-alive client outlives stop().
    protocol_version = "HTTP/1.0"

    def do_POST(self) -> None:
        """Serve ``POST /v1/embeddings``."""
        owner = cast(FakeEmbeddingServer, cast(Any, self.server).owner)
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        path = self.path.split("?")[0]
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        failure = owner._record(
            RecordedEmbeddingRequest(path, body, self.headers.get("authorization"))
        )
        if path not in _EMBEDDING_PATHS:
            self._error(404, f"unknown path {self.path}")
        elif failure is not None:
            self._error(failure.status, failure.message, retry_after=failure.retry_after)
        else:
            self._embed(body, owner.dimensions)

    def _embed(self, body: Any, default_dimensions: int) -> None:
        if not isinstance(body, dict):
            self._error(400, "request body is not a JSON object")
            return
        model, texts = body.get("model"), body.get("input")
        if not isinstance(model, str) or not model:
            self._error(400, "you must provide a model parameter", param="model")
            return
        if isinstance(texts, str):
            texts = [texts]
        if (
            not isinstance(texts, list)
            or not texts
            or not all(isinstance(text, str) for text in texts)
        ):
            self._error(400, "input must be a string or a non-empty list of strings", "input")
            return
        dimensions = body.get("dimensions", default_dimensions)
        if not isinstance(dimensions, int) or dimensions < 1:
            self._error(400, "dimensions must be a positive integer", param="dimensions")
            return
        encoding = body.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            self._error(400, "encoding_format must be 'float' or 'base64'", "encoding_format")
            return
        data = []
        for index, text in enumerate(texts):
            vector = trigram_embedding(text, dimensions)
            encoded: Any = (
                base64.b64encode(pack(vector)).decode() if encoding == "base64" else vector
            )
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(len(words(text)) for text in texts)
        self.send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _error(
        self,
        status: int,
        message: str,
        param: str | None = None,
        *,
        retry_after: float | None = None,
    ) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        headers = [("retry-after", str(retry_after))] if retry_after is not None else []
        body = {"error": {"message": message, "type": kind, "param": param, "code": None}}
        self.send_json(status, body, headers)


class FakeEmbeddingServer(LoopbackServer):
    """A fake OpenAI-compatible embeddings endpoint on a loopback port, on a daemon thread."""

    handler_class = _Handler

    def __init__(
        self, *, dimensions: int = DEFAULT_DIMENSIONS, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        super().__init__(host=host, port=port)
        self.dimensions = dimensions
        self.requests: list[RecordedEmbeddingRequest] = []
        self._failures: deque[_Failure] = deque()
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url`` of the running server, ``http://<host>:<port>/v1``."""
        return f"{super().base_url}/v1"

    def fail_next(
        self, status: int, *, times: int = 1, message: str = "", retry_after: float | None = None
    ) -> None:
        """Answer the next ``times`` embedding requests with HTTP ``status`` (an OpenAI error)."""
        failure = _Failure(status, message or f"fake failure {status}", retry_after)
        with self._lock:
            self._failures.extend([failure] * times)

    def _record(self, request: RecordedEmbeddingRequest) -> _Failure | None:
        with self._lock:
            self.requests.append(request)
            return self._failures.popleft() if self._failures else None
