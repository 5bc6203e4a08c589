"""One line per failed activity attempt, instead of the SDK's traceback. See docs/modules.md."""

from __future__ import annotations

import asyncio
import logging

from temporalio.exceptions import ApplicationError, CancelledError

_SDK_LOGGER = "temporalio.activity"


class _OneLineFailures(logging.Filter):
    """Rewrites the SDK's "Completing activity as failed" record for translated failures."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        details = getattr(record, "temporal_activity", None)
        if not isinstance(details, dict):
            return True
        if isinstance(exc, ApplicationError):
            verb = "failed"
        elif isinstance(exc, asyncio.CancelledError | CancelledError):
            verb = "was cancelled (its run ended, was reset, or its worker stopped)"
        else:
            return True
        record.msg = "rath: %s attempt %s of %s %s: %s"
        record.args = (
            details.get("activity_type", "activity"),
            details.get("attempt", "?"),
            details.get("workflow_id", "?"),
            verb,
            (str(exc).splitlines() or [type(exc).__name__])[0],
        )
        record.exc_info = None
        record.exc_text = None
        return True


_FILTER = _OneLineFailures()


def quiet_activity_failures() -> None:
    """Install the one-line filter on the SDK's activity logger (idempotent)."""
    logger = logging.getLogger(_SDK_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
