"""OpenRath's ``RathLLMFunctionTool``: a function tool's schema as a value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RathLLMFunctionTool:
    """A function the model may call: its name, JSON Schema, description and strictness."""

    name: str
    parameters: dict[str, Any]
    description: str | None = None
    strict: bool | None = None

    def to_openai(self) -> dict[str, Any]:
        """The Chat Completions ``tools`` entry."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description is not None:
            function["description"] = self.description
        if self.strict is not None:
            function["strict"] = self.strict
        return {"type": "function", "function": function}
