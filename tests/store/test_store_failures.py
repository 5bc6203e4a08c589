"""At the activity boundary a store that did not answer is retryable; a missing object is not."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError

from rath.activities._boundary import activity_errors
from rath.errors import StoreError, StoreUnavailableError


@pytest.mark.parametrize(
    ("error", "kind", "retryable"),
    [
        (StoreUnavailableError("s3://b did not answer"), "StoreUnavailableError", True),
        (StoreError("object ab... is missing"), "StoreError", False),
    ],
)
def test_store_failures_cross_the_activity_boundary(
    error: StoreError, kind: str, retryable: bool
) -> None:
    with pytest.raises(ApplicationError) as caught, activity_errors():
        raise error
    assert caught.value.type == kind
    assert caught.value.non_retryable is not retryable
    assert str(error) in str(caught.value)
