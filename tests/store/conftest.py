"""Store fixtures: one moto S3 server per test session, a fresh bucket per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from s3_server import S3Server, s3_server


@pytest.fixture(scope="session")
def s3() -> Iterator[S3Server]:
    """A moto S3 server on loopback for the whole session."""
    with s3_server() as server:
        yield server


@pytest.fixture
def s3_env(s3: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    """This process's environment pointed at ``s3`` with the standard AWS variables."""
    for name, value in s3.env.items():
        monkeypatch.setenv(name, value)
    return s3
