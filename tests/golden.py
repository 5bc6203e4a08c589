"""Golden files: a value as stable JSON, compared with or written to ``tests/goldens/<name>.json``.

``RATH_UPDATE_GOLDENS=1`` writes the files instead of comparing; review the diff before
committing it. Values are made stable first: ids, ports, temporary paths, timestamps and
durations become placeholders, so a golden names behaviour, not one run.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel

GOLDENS = Path(__file__).resolve().parent / "goldens"
UPDATE = os.environ.get("RATH_UPDATE_GOLDENS") == "1"
VARYING_NUMBERS = frozenset({"created", "elapsed_ms"})
"""Keys whose (numeric) values change from run to run."""
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_SERIALS = re.compile(r"\b(chatcmpl-fake|msg_fake)\d+\b")
_PORT = re.compile(r"\b127\.0\.0\.1:\d+\b")


class Stable:
    """Turns values into JSON-ready data with run-specific parts replaced by placeholders.

    UUIDs become ``<uuid-1>``, ``<uuid-2>``... in order of first appearance (so equal ids stay
    equal), the given temporary folders ``<tmp>``, loopback ports ``<port>``, the fake
    servers' serial ids ``<serial>``, and the numbers under :data:`VARYING_NUMBERS` ``"<n>"``.
    """

    def __init__(self, *folders: Path) -> None:
        self._folders = sorted((str(f) for f in folders), key=len, reverse=True)
        self._uuids: dict[str, str] = {}

    def __call__(self, value: Any, key: str | None = None) -> Any:
        """``value`` as stable JSON-ready data (``key``: the mapping key it stands under)."""
        if key in VARYING_NUMBERS and isinstance(value, int | float):
            return "<n>"
        if isinstance(value, BaseModel):
            return self(value.model_dump(mode="json"))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: self(getattr(value, f.name), f.name) for f in dataclasses.fields(value)}
        if isinstance(value, Mapping):
            return {str(k): self(v, str(k)) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self(v) for v in value]
        if isinstance(value, UUID):
            value = str(value)
        if isinstance(value, str):
            return self._text(value)
        if value is None or isinstance(value, bool | int | float):
            return value
        raise TypeError(f"no stable JSON form for {type(value).__name__}: add one to golden.py")

    def _text(self, text: str) -> str:
        for folder in self._folders:
            text = text.replace(folder, "<tmp>")
        text = _PORT.sub("127.0.0.1:<port>", text)
        text = _SERIALS.sub(r"\1<serial>", text)
        return _UUID.sub(self._uuid, text)

    def _uuid(self, match: re.Match[str]) -> str:
        return self._uuids.setdefault(match.group(0), f"<uuid-{len(self._uuids) + 1}>")


def check_golden(name: str, value: Any) -> None:
    """Compare ``value`` (already stable) with golden ``name``, or write it when updating.

    Equality is of the parsed JSON (key order aside); a mismatch shows a diff of the two.
    """
    path = GOLDENS / f"{name}.json"
    text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    if UPDATE:
        GOLDENS.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"no golden {path.name}: record it with RATH_UPDATE_GOLDENS=1"
    expected = path.read_text()
    if json.loads(expected) != json.loads(text):
        diff = difflib.unified_diff(
            expected.splitlines(), text.splitlines(), "golden", "now", lineterm="", n=2
        )
        raise AssertionError(f"{path.name} differs from the golden:\n" + "\n".join(diff))
