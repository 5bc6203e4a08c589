"""A sandbox spec as OpenRath's JSON object (``timeout`` as ``timeout_seconds``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from rath.backend.spec import BackendSandboxSpec


def spec_to_jsonable(spec: BackendSandboxSpec | None) -> dict[str, Any] | None:
    """``spec`` as OpenRath's JSON object (``timeout`` as ``timeout_seconds``)."""
    if spec is None:
        return None
    return {
        "image": spec.image,
        "entrypoint": None if spec.entrypoint is None else list(spec.entrypoint),
        "env": None if spec.env is None else dict(spec.env),
        "timeout_seconds": None if spec.timeout is None else spec.timeout.total_seconds(),
        "working_dir": spec.working_dir,
    }


def spec_from_jsonable(raw: dict[str, Any] | None) -> BackendSandboxSpec | None:
    """The inverse of :func:`spec_to_jsonable` (an empty ``entrypoint`` or ``env`` is None)."""
    if raw is None:
        return None
    seconds = raw.get("timeout_seconds")
    return BackendSandboxSpec(
        image=raw.get("image"),
        entrypoint=tuple(raw["entrypoint"]) if raw.get("entrypoint") else None,
        env=dict(raw["env"]) if raw.get("env") else None,
        timeout=None if seconds is None else timedelta(seconds=float(seconds)),
        working_dir=raw.get("working_dir"),
    )
