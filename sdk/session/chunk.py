"""The chunk model: a transcript is an append-only table of typed rows. See docs/modules.md."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

from rath.llm.chat_request import RathLLMMessage
from rath.llm.chat_response import RathLLMToolCallPart


class ChunkKind(str, Enum):  # noqa: UP042 - prints ChunkKind.X, as OpenRath's
    """The kind of a transcript row."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL_RESULT = "tool_result"


class ChunkRow(BaseModel):
    """One immutable transcript row: a kind, its payload and, optionally, when it was made."""

    model_config = ConfigDict(frozen=True)

    kind: ChunkKind
    payload: dict[str, Any]
    at: float | None = None

    def __init__(
        self, kind: ChunkKind | str, payload: dict[str, Any], *, at: float | None = None
    ) -> None:
        """A row of ``kind`` holding ``payload``, positionally (as OpenRath's) or by keyword."""
        super().__init__(kind=kind, payload=payload, at=at)

    # Validation of stored rows goes straight to pydantic, not through this signature.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def canonical_json(self) -> bytes:
        """The row as canonical JSON bytes: what the chunk store keeps and hashes."""
        record: dict[str, Any] = {"kind": self.kind.value, "payload": self.payload}
        if self.at is not None:
            record["at"] = self.at
        return canonical_json(record)

    def stamped(self, at: float) -> ChunkRow:
        """This row made at ``at`` (seconds since the epoch)."""
        return self.model_copy(update={"at": at})

    def digest(self) -> str:
        """The content address of this row (sha256 of its canonical JSON)."""
        return hashlib.sha256(self.canonical_json()).hexdigest()


class ChunkTable(BaseModel):
    """A materialised transcript: an immutable tuple of rows."""

    model_config = ConfigDict(frozen=True)

    rows: tuple[ChunkRow, ...] = ()

    def __init__(self, rows: Iterable[ChunkRow] = ()) -> None:
        """A table of ``rows``, positionally (as OpenRath's) or by keyword."""
        super().__init__(rows=tuple(rows))

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def extend(self, *additional: ChunkRow) -> ChunkTable:
        """Return a new table with ``additional`` rows appended."""
        return ChunkTable(rows=self.rows + additional)

    def __len__(self) -> int:
        return len(self.rows)


def canonical_json(value: Any) -> bytes:
    """Serialise ``value`` deterministically (sorted keys, no spaces, UTF-8)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def system_text_chunk(text: str) -> ChunkRow:
    """A SYSTEM row with ``text``."""
    return ChunkRow(kind=ChunkKind.SYSTEM, payload={"content": text})


def user_text_chunk(text: str) -> ChunkRow:
    """A USER row with ``text``."""
    return ChunkRow(kind=ChunkKind.USER, payload={"content": text})


def assistant_turn_chunk(
    *,
    tool_calls: Sequence[RathLLMToolCallPart | Mapping[str, Any]] | None = None,
    content: str | None = None,
) -> ChunkRow:
    """An ASSISTANT row; ``tool_calls`` (OpenRath's parts, or wire dicts) are stored as wire."""
    wire = [_wire_call(call) for call in tool_calls] if tool_calls else None
    return ChunkRow(kind=ChunkKind.ASSISTANT, payload={"content": content, "tool_calls": wire})


def _wire_call(call: RathLLMToolCallPart | Mapping[str, Any]) -> dict[str, Any]:
    """One tool call as the OpenAI wire dict (``id``, ``type``, ``function``)."""
    if isinstance(call, RathLLMToolCallPart):
        function = {"name": call.function.name, "arguments": call.function.arguments}
        return {"id": call.id, "type": call.type, "function": function}
    return dict(call)


def tool_feedback_chunk(tool_call_id: str, name: str, body: str) -> ChunkRow:
    """A TOOL_RESULT row; ``body`` is the JSON string the model will read."""
    return ChunkRow(
        kind=ChunkKind.TOOL_RESULT,
        payload={"tool_call_id": tool_call_id, "name": name, "content": body},
    )


def wire_messages(rows: Iterable[ChunkRow]) -> list[dict[str, Any]]:
    """Rows as OpenAI chat message dicts, as a request sends them (only non-None keys)."""
    messages: list[dict[str, Any]] = []
    for row in rows:
        payload = row.payload
        if row.kind is ChunkKind.TOOL_RESULT:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": payload["tool_call_id"],
                    "content": payload["content"],
                }
            )
        elif row.kind is ChunkKind.ASSISTANT:
            message: dict[str, Any] = {"role": "assistant", "content": payload.get("content")}
            if payload.get("tool_calls"):
                message["tool_calls"] = payload["tool_calls"]
            messages.append(message)
        else:
            messages.append({"role": row.kind.value, "content": payload["content"]})
    return messages


def chunk_table_to_messages(tab: ChunkTable | Iterable[ChunkRow]) -> tuple[RathLLMMessage, ...]:
    """OpenRath's flattening of a table (or rows) into LLM messages, in order."""
    rows = tab.rows if isinstance(tab, ChunkTable) else tab
    return tuple(
        RathLLMMessage(
            role=message["role"],
            content=message["content"],
            tool_call_id=message.get("tool_call_id"),
            tool_calls=tuple(message["tool_calls"]) if "tool_calls" in message else None,
        )
        for message in wire_messages(rows)
    )


def format_chunk_row_brief(index: int, row: ChunkRow, *, max_payload: int = 400) -> str:
    """One line describing ``row``: index, kind and a truncated, newline-escaped preview."""
    payload = row.payload
    if row.kind is ChunkKind.ASSISTANT and payload.get("tool_calls"):
        calls = ", ".join(
            f"{call['function']['name']}({_clip(call['function']['arguments'], 160)})"
            for call in payload["tool_calls"]
        )
        text = (f"{payload['content']} " if payload.get("content") else "") + f"-> {calls}"
    elif row.kind is ChunkKind.TOOL_RESULT:
        text = f"{payload['name']}: {_readable_json(payload['content'])}"
    else:
        text = str(payload.get("content"))
    return f"[{index}] {row.kind.value:<11} {_clip(text, max_payload)}"


def _readable_json(body: str) -> str:
    """``body`` re-encoded with real Unicode when it is JSON; else as it is."""
    try:
        return json.dumps(json.loads(body), ensure_ascii=False)
    except (TypeError, ValueError):
        return body


def _clip(text: str, limit: int) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."
