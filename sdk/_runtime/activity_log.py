"""One line per failed activity attempt, instead of the SDK's traceback.

The Temporal worker logs every failed attempt at WARNING with the traceback. Rath's activities
translate every expected failure (an unreachable model, a bad tool call, a missing chunk) into
an ``ApplicationError`` whose message already names the cause, so for those the traceback is
noise: a script on the embedded default would print 15 lines per retry. Anything else (a bug)
keeps its traceback.
"""

from __future__ import annotations

import logging

from temporalio.exceptions import ApplicationError

_SDK_LOGGER = "temporalio.activity"


class _OneLineFailures(logging.Filter):
    """Rewrites the SDK's "Completing activity as failed" record for translated failures."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        details = getattr(record, "temporal_activity", None)
        if isinstance(exc, ApplicationError) and isinstance(details, dict):
            record.msg = "rath: %s attempt %s of %s failed: %s"
            record.args = (
                details.get("activity_type", "activity"),
                details.get("attempt", "?"),
                details.get("workflow_id", "?"),
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
