"""Streaming test helpers: a fake server whose streams pause mid-way, a recording callback."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from rath.streaming import RathLLMStreamDelta, StreamFold
from rath.testing import FakeAnthropicServer, FakeChatServer, FakeServer, Handler, Reply

MODELS = {"openai": "fake-model", "anthropic": "claude-fake"}
# The frame before which a streamed text reply pauses: the one after its first text piece.
FIRST_PIECE = {"openai": 1, "anthropic": 2}


class WrappedWire:
    """A fake server's wire with some of its behaviour replaced; the rest is the inner one's."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.base_path = inner.base_path
        self.post_paths = inner.post_paths
        self.models_paths = inner.models_paths

    def accepts(self, path: str) -> bool:
        return bool(self.inner.accepts(path))

    def body(self, reply: Reply, model: str) -> dict[str, Any]:
        return self.inner.body(reply, model)

    def events(self, reply: Reply, model: str, request: dict[str, Any]) -> list[bytes]:
        return self.inner.events(reply, model, request)

    def error(self, status: int, message: str) -> dict[str, Any]:
        return self.inner.error(status, message)

    def models(self, model: str) -> dict[str, Any]:
        return self.inner.models(model)


class PausingWire(WrappedWire):
    """Wraps a fake server's wire: a streamed reply stops before frame ``at`` until ``resume``.

    ``sent`` records when each frame went out (``time.monotonic()``), for latency checks.
    """

    def __init__(self, inner: Any, *, at: int, resume: threading.Event, timeout: float = 30):
        super().__init__(inner)
        self.at = at
        self.resume = resume
        self.timeout = timeout
        self.paused = threading.Event()
        self.sent: list[tuple[float, bytes]] = []

    def events(self, reply: Reply, model: str, request: dict[str, Any]) -> list[bytes]:
        return _Frames(self.inner.events(reply, model, request), self)


class _Frames(list[bytes]):
    """The frames of one streamed reply; iterating them pauses where the wire says."""

    def __init__(self, frames: list[bytes], wire: PausingWire) -> None:
        super().__init__(frames)
        self._wire = wire

    def __iter__(self) -> Iterator[bytes]:
        for index, frame in enumerate(list.__iter__(self)):
            if index == self._wire.at and not self._wire.resume.is_set():
                self._wire.paused.set()
                self._wire.resume.wait(self._wire.timeout)
            self._wire.sent.append((time.monotonic(), frame))
            yield frame


def pausing_server(
    wire: str, handler: Handler | Sequence[Reply], resume: threading.Event, *, at: int | None = None
) -> tuple[FakeServer, PausingWire]:
    """A not yet started fake ``wire`` server whose streams pause before frame ``at``."""
    cls = FakeAnthropicServer if wire == "anthropic" else FakeChatServer
    server = cls(handler, model=MODELS[wire])
    pausing = PausingWire(cls.wire, at=FIRST_PIECE[wire] + 1 if at is None else at, resume=resume)
    server.wire = pausing
    return server, pausing


class Recorder:
    """An ``on_event`` callback that folds events and notes when and where each arrived."""

    def __init__(self) -> None:
        self.fold = StreamFold()
        self.arrived: list[float] = []
        self.first_text = threading.Event()
        self.threads: set[str] = set()

    def __call__(self, event: RathLLMStreamDelta) -> None:
        self.arrived.append(time.monotonic())
        self.threads.add(threading.current_thread().name)
        self.fold.add(event)
        if event.content_delta:
            self.first_text.set()

    @property
    def events(self) -> list[RathLLMStreamDelta]:
        """Every event delivered, in order."""
        return self.fold.events


class TricklingWire(WrappedWire):
    """An OpenAI wire that streams a text answer one character per frame, ``pace`` apart.

    A stand-in for a model writing token by token (the pace paces the fake model; nothing
    waits on it).
    """

    def __init__(self, inner: Any, *, pace: float) -> None:
        super().__init__(inner)
        self.pace = pace

    def events(self, reply: Reply, model: str, request: dict[str, Any]) -> list[bytes]:
        def frame(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            chunk = {"id": "c", "object": "chat.completion.chunk", "model": model}
            return f"data: {json.dumps(chunk | {'created': 0, 'choices': [choice]})}\n\n".encode()

        frames = [frame({"role": "assistant", "content": ""})]
        frames += [frame({"content": char}) for char in reply.content or ""]
        frames += [frame({}, reply.finish_reason), b"data: [DONE]\n\n"]
        return _Paced(frames, self.pace)


class _Paced(list[bytes]):
    def __init__(self, frames: list[bytes], pace: float) -> None:
        super().__init__(frames)
        self._pace = pace

    def __iter__(self) -> Iterator[bytes]:
        for frame in list.__iter__(self):
            time.sleep(self._pace)
            yield frame


def trickling_server(replies: Sequence[Reply], *, pace: float) -> FakeServer:
    """A not yet started fake OpenAI server that streams text one character at a time."""
    server = FakeChatServer(replies, model=MODELS["openai"])
    server.wire = TricklingWire(FakeChatServer.wire, pace=pace)
    return server
