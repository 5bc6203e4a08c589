"""Rath's stream machinery: topic, options, fold and coalescing of deltas (docs/providers.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from rath.llm.chat_response import RathLLMStreamDelta, RathLLMTokenUsage
from rath.llm.errors import ProviderError

TOPIC = "rath.llm.delta"
"""The workflow-stream topic a run's model deltas are published on."""


class StreamOptions(BaseModel):
    """How a run streams: deltas are published at most every ``batch_seconds`` (first at once)."""

    model_config = ConfigDict(frozen=True)

    batch_seconds: float = 0.2


def coalesce(deltas: list[RathLLMStreamDelta]) -> list[RathLLMStreamDelta]:
    """Merge neighbouring text pieces, and argument pieces of one call (the fold is unchanged)."""
    out: list[RathLLMStreamDelta] = []
    for delta in deltas:
        merged = _merge(out[-1], delta) if out else None
        if merged is None:
            out.append(delta)
        else:
            out[-1] = merged
    return out


_TOOL_FIELDS = ("tool_call_id", "tool_call_name_delta")
_OTHER_FIELDS = ("finish_reason", "usage")


def _merge(a: RathLLMStreamDelta, b: RathLLMStreamDelta) -> RathLLMStreamDelta | None:
    if a.key != b.key or a.retry or b.retry:
        return None
    if any(getattr(x, f) is not None for x in (a, b) for f in _OTHER_FIELDS):
        return None
    if _text_only(a) and _text_only(b):
        text = (a.content_delta or "") + (b.content_delta or "")
        return a.model_copy(update={"content_delta": text})
    if (
        a.content_delta is None
        and b.content_delta is None
        and a.tool_call_index is not None
        and a.tool_call_index == b.tool_call_index
        and all(getattr(b, f) is None for f in _TOOL_FIELDS)
        and b.tool_call_args_delta is not None
    ):
        args = (a.tool_call_args_delta or "") + (b.tool_call_args_delta or "")
        return a.model_copy(update={"tool_call_args_delta": args})
    return None


def _text_only(delta: RathLLMStreamDelta) -> bool:
    return delta.content_delta is not None and delta.tool_call_index is None


@dataclass
class FoldedCall:
    """One tool call folded from its events."""

    id: str | None = None
    name: str = ""
    arguments: str = ""


@dataclass
class FoldedRound:
    """One round's answer folded from its events (the latest attempt's only)."""

    attempt: int = 1
    content: str = ""
    tool_calls: dict[int, FoldedCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: RathLLMTokenUsage | None = None


class StreamFold:
    """Folds a run's events back into each round's answer, as OpenRath folded a stream.

    Text and argument pieces concatenate; the last finish reason and usage win. A ``retry`` event,
    or one of a later attempt, restarts its round; an earlier attempt's events are ignored.
    """

    def __init__(self) -> None:
        self.rounds: dict[int, FoldedRound] = {}
        self.events: list[RathLLMStreamDelta] = []

    def add(self, event: RathLLMStreamDelta) -> None:
        """Fold one event in."""
        self.events.append(event)
        current = self.rounds.get(event.round)
        if current is not None and event.attempt < current.attempt:
            return  # a superseded attempt still publishing, its retry marker included
        if current is None or event.retry or event.attempt > current.attempt:
            current = self.rounds[event.round] = FoldedRound(attempt=event.attempt)
        if event.content_delta:
            current.content += event.content_delta
        if event.tool_call_index is not None:
            call = current.tool_calls.setdefault(event.tool_call_index, FoldedCall())
            call.id = event.tool_call_id or call.id
            call.name += event.tool_call_name_delta or ""
            call.arguments += event.tool_call_args_delta or ""
        if event.finish_reason is not None:
            current.finish_reason = event.finish_reason
        if event.usage is not None:
            current.usage = event.usage


Emit = Callable[[RathLLMStreamDelta], None]
"""Receives each delta as it arrives (called on the event loop; must not block)."""


class StreamAnswer:
    """One streamed answer being read: wire items in, deltas out, then the whole answer."""

    def __init__(self, *, where: str, model: str) -> None:
        self._where = where
        self._model = model

    def feed(self, item: object) -> list[RathLLMStreamDelta]:
        """Take one streamed item (a chunk or an event); return the deltas it carries."""
        raise NotImplementedError

    def answer(self) -> object:
        """The whole answer in the provider's non-streaming shape.

        Raises:
            ProviderError: The stream ended before the answer finished.
        """
        raise NotImplementedError

    def _ended_early(self, missing: str) -> ProviderError:
        return ProviderError(
            f"{self._where} ended its stream for model {self._model!r} before the answer "
            f"finished (no {missing})",
            error_type="LLMBadResponse",
            retryable=True,
        )
