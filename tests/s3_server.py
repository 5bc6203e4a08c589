"""A real S3 wire server on loopback for store tests: moto's ``ThreadedMotoServer``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import boto3
from moto.server import ThreadedMotoServer

# Obviously fake credentials: moto accepts any; they only need to be present.
FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing-key-id",
    "AWS_SECRET_ACCESS_KEY": "testing-secret",
}


@dataclass(frozen=True)
class S3Server:
    """A running moto S3 server and the environment a process needs to use it."""

    endpoint: str

    @property
    def env(self) -> dict[str, str]:
        """The standard AWS variables pointing at this server (plain HTTP, fake keys)."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ALLOW_HTTP": "true",
            "AWS_REGION": "us-east-1",
            **FAKE_CREDENTIALS,
        }

    def new_bucket(self) -> str:
        """Create a fresh bucket and return its name."""
        name = f"rath-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def client(self) -> object:
        """A boto3 S3 client for this server (tests use it to look behind the store's back)."""
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )


@contextmanager
def s3_server() -> Iterator[S3Server]:
    """Start a moto S3 server on 127.0.0.1 (a free port) and stop it afterwards."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield S3Server(f"http://{host}:{port}")
    finally:
        server.stop()
