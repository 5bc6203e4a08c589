"""Reading a streamed Chat Completion: chunks in, deltas out, then the whole answer.

The answer is the ``chat.completion`` a plain call would get (only ``choices[0]`` is read).
"""

from __future__ import annotations

from typing import Any

from rath.llm._wire import counted_usage
from rath.llm.chat_response import FINISH_REASONS, RathLLMStreamDelta, RathLLMTokenUsage
from rath.llm.stream import StreamAnswer


class OpenAIStreamAnswer(StreamAnswer):
    """The answer so far of one streamed Chat Completion."""

    def __init__(self, *, where: str, model: str) -> None:
        super().__init__(where=where, model=model)
        self._parts: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None
        self._served_model = ""
        self._id = ""

    def feed(self, chunk: object) -> list[RathLLMStreamDelta]:
        """Take one ``chat.completion.chunk``; return the deltas it carries.

        Raises:
            ValueError: The chunk is not a JSON object.
        """
        if not isinstance(chunk, dict):
            raise ValueError(f"a stream chunk is not a JSON object: {str(chunk)[:80]}")
        self._id = chunk.get("id") or self._id
        self._served_model = chunk.get("model") or self._served_model
        out: list[RathLLMStreamDelta] = []
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) == 0:
                out += self._choice(choice)
        usage = chunk.get("usage")
        if isinstance(usage, dict) and usage:
            self._usage = usage
            # OpenRath's rule: a block without counts (the SDK dumps ``{}`` as all-None
            # fields) is no delta.
            if usage.get("prompt_tokens") or usage.get("completion_tokens"):
                out.append(RathLLMStreamDelta(usage=_token_usage(usage)))
        return out

    def _choice(self, choice: dict[str, Any]) -> list[RathLLMStreamDelta]:
        out: list[RathLLMStreamDelta] = []
        delta = choice.get("delta") or {}
        text = delta.get("content")
        if isinstance(text, str):
            self._parts.append(text)
            if text:
                out.append(RathLLMStreamDelta(content_delta=text))
        for call in delta.get("tool_calls") or ():
            index = int(call.get("index") or 0)
            entry = self._calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
            function = call.get("function") or {}
            name, args = function.get("name") or "", function.get("arguments") or ""
            entry["id"] = call.get("id") or entry["id"]
            entry["name"] += name
            entry["arguments"] += args
            if call.get("id") or name or args:
                out.append(
                    RathLLMStreamDelta(
                        tool_call_index=index,
                        tool_call_id=call.get("id") or None,
                        tool_call_name_delta=name or None,
                        tool_call_args_delta=args or None,
                    )
                )
        reason = choice.get("finish_reason")
        if reason:
            # The answer keeps it (normalised like a plain call's); an unknown reason makes no
            # delta, as in OpenRath.
            self._finish = reason
            if reason in FINISH_REASONS:
                out.append(RathLLMStreamDelta(finish_reason=reason))
        return out

    def answer(self) -> dict[str, Any]:
        """The whole answer as a ``chat.completion`` object.

        Raises:
            ProviderError: The stream ended before a finish reason (retryable).
        """
        if self._finish is None:
            raise self._ended_early("finish_reason")
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(self._parts) if self._parts else None,
        }
        if self._calls:
            message["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call["arguments"]},
                }
                for _, call in sorted(self._calls.items())
            ]
        choice = {"index": 0, "finish_reason": self._finish, "message": message}
        return {
            "id": self._id,
            "object": "chat.completion",
            "model": self._served_model,
            "choices": [choice],
            "usage": self._usage,
        }


def _token_usage(usage: dict[str, Any]) -> RathLLMTokenUsage:
    return counted_usage(
        usage.get("prompt_tokens"), usage.get("completion_tokens"), usage.get("total_tokens")
    )
