"""At the activity boundary a store that did not answer is retryable; a missing object is not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_a_worker_with_a_bad_store_url_exits_with_one_line(tmp_path: Path) -> None:
    env = dict(os.environ) | {
        "RATH_HOME": str(tmp_path),
        "RATH_STORE_URL": "ftp://files.example/rath",
        "TEMPORAL_ADDRESS": "127.0.0.1:9",  # never reached: the store is checked first
    }
    result = subprocess.run(
        [sys.executable, "-m", "rath.worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "rath worker: RATH_STORE_URL='ftp://files.example/rath' has an unknown scheme; use "
        "file:///dir, s3://bucket/prefix, gs://bucket/prefix or az://container/prefix"
    ]
