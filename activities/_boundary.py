"""Where Rath's own errors become Temporal failures: once, at the activity boundary."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio.exceptions import ApplicationError

from rath.errors import StoreError, StoreUnavailableError, UserError


@contextmanager
def activity_errors() -> Iterator[None]:
    """Translate user mistakes into non-retryable failures; a missing store object too.

    An object store that did not answer (after its own bounded retries) stays retryable: the
    activity's retry policy tries again later.
    """
    try:
        yield
    except UserError as exc:
        raise ApplicationError(str(exc), type=type(exc).__name__, non_retryable=True) from None
    except StoreUnavailableError as exc:
        raise ApplicationError(str(exc), type="StoreUnavailableError") from None
    except StoreError as exc:
        # Retrying cannot make a missing object appear; fail with the fix in the message.
        raise ApplicationError(str(exc), type="StoreError", non_retryable=True) from None
