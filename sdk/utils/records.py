"""Values for JSON records on disk: a value made serialisable, a stored time made comparable."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

__all__ = ["aware_utc", "jsonable"]


def jsonable(value: Any, *, allow_nan: bool = True) -> Any:
    """``value`` if :func:`json.dumps` takes it (with ``allow_nan``), else ``str(value)``.

    With ``allow_nan=False`` NaN and infinities become strings too (they are not valid JSON).
    """
    try:
        json.dumps(value, allow_nan=allow_nan)
    except (TypeError, ValueError):  # unserialisable, circular, or NaN/inf when not allowed
        return str(value)
    return value


def aware_utc(moment: datetime) -> datetime:
    """``moment`` with a time zone: a naive one, as older records hold, is taken as UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
