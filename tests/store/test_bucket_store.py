"""The S3 backend against a real S3 wire server (moto): the ObjectStore calls, idempotent
content-addressed writes, missing and damaged objects, retries, and URL checks."""

from __future__ import annotations

import hashlib
import socket
import time
from datetime import timedelta
from pathlib import Path
from uuid import uuid4

import pytest
from flaky_proxy import flaky_relay
from s3_server import S3Server

from rath.errors import ConfigError, StoreError, StoreUnavailableError
from rath.session import ChunkKind, ChunkRow
from rath.settings import Settings
from rath.store import Catalog, ChunkStore, SessionRecord, open_objects, store_for
from rath.store.bucket_store import BucketStore
from rath.store.chunk_store import object_key
from rath.store.objects import DirectoryStore


def test_put_get_exists_list_delete(s3_env: S3Server) -> None:
    bucket = s3_env.new_bucket()
    store = open_objects(f"s3://{bucket}/team/rath")
    assert isinstance(store, BucketStore)

    assert store.put("ab/cdef", b"one") is True
    assert store.put("ab/cdxx", b"two") is True
    assert store.put("catalog/x.json", b"{}") is True
    assert store.get("ab/cdef") == b"one"
    assert store.exists("ab/cdef") and not store.exists("ab/none")

    keys = sorted(info.key for info in store.list("ab/cd"))
    assert keys == ["ab/cdef", "ab/cdxx"]
    assert [(i.key, i.size) for i in store.list("catalog/")] == [("catalog/x.json", 2)]
    assert abs(next(iter(store.list("catalog/"))).modified - time.time()) < 600
    # The URL's path is a key prefix in the bucket.
    listed = s3_env.client().list_objects_v2(Bucket=bucket)["Contents"]  # type: ignore[attr-defined]
    assert sorted(o["Key"] for o in listed) == [
        "team/rath/ab/cdef",
        "team/rath/ab/cdxx",
        "team/rath/catalog/x.json",
    ]

    store.delete("ab/cdef")
    store.delete("ab/cdef")  # a missing key is not an error
    assert not store.exists("ab/cdef")
    with pytest.raises(FileNotFoundError):
        store.get("ab/cdef")


def test_content_addressed_writes_are_idempotent(s3_env: S3Server) -> None:
    store = open_objects(f"s3://{s3_env.new_bucket()}")
    assert store.put("k/1", b"first") is True
    assert store.put("k/1", b"second") is False  # put-if-absent: the first write stays
    assert store.get("k/1") == b"first"
    assert store.put("k/1", b"second", overwrite=True) is True
    assert store.get("k/1") == b"second"

    chunks = ChunkStore(store)
    row = ChunkRow(kind=ChunkKind.USER, payload={"content": "hi"})
    assert chunks.put_row(row) == chunks.put_row(row)
    assert ChunkStore(store).get_row(chunks.put_row(row)) == row


def test_missing_object_names_the_store_and_the_setting(s3_env: S3Server) -> None:
    url = f"s3://{s3_env.new_bucket()}/p"
    chunks = ChunkStore(open_objects(url))
    with pytest.raises(StoreError, match="is missing from") as caught:
        chunks.get_bytes("ab" * 32)
    assert url in str(caught.value) and "RATH_STORE_URL" in str(caught.value)


def test_damaged_object_fails_its_sha256_check(s3_env: S3Server) -> None:
    bucket = s3_env.new_bucket()
    chunks = ChunkStore(open_objects(f"s3://{bucket}"))
    digest = chunks.put_bytes(b"the real bytes")
    s3_env.client().put_object(Bucket=bucket, Key=object_key(digest), Body=b"tampered")  # type: ignore[attr-defined]
    with pytest.raises(StoreError, match="damaged"):
        ChunkStore(open_objects(f"s3://{bucket}")).get_bytes(digest)
    assert hashlib.sha256(b"the real bytes").hexdigest() == digest


def test_catalog_lives_in_the_same_bucket(s3_env: S3Server) -> None:
    store = ChunkStore(open_objects(f"s3://{s3_env.new_bucket()}/rath"))
    record = SessionRecord(id=uuid4(), root=store.put_bytes(b"row"))
    catalog = Catalog(store.objects)
    catalog.put(record)
    catalog.put(record.model_copy(update={"status": "completed"}))  # records are replaced
    assert [r.status for r in catalog.records()] == ["completed"]


def test_transient_errors_are_retried_with_backoff(s3_env: S3Server) -> None:
    bucket = s3_env.new_bucket()
    with flaky_relay(s3_env.endpoint, failures=3) as relay:
        store = _with_endpoint(bucket, relay.endpoint)  # the store reads it when it is built
        assert store.put("a/b", b"x") is True
        assert relay.failed == 3
        assert store.get("a/b") == b"x"


def _with_endpoint(bucket: str, endpoint: str) -> BucketStore:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ENDPOINT_URL", endpoint)
        return BucketStore(f"s3://{bucket}", max_retries=5)


def test_an_unreachable_store_fails_in_bounded_time_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch, s3_env: S3Server
) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    store = BucketStore("s3://nowhere-bucket", max_retries=2, retry_timeout=timedelta(seconds=5))
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="AWS_ENDPOINT_URL") as caught:
        store.get("ab/cd")
    assert time.monotonic() - start < 15
    assert "s3://nowhere-bucket" in str(caught.value)


def test_store_urls_are_checked(tmp_path: Path) -> None:
    assert isinstance(open_objects(tmp_path.as_uri()), DirectoryStore)
    assert isinstance(open_objects(str(tmp_path)), DirectoryStore)
    for bad in ("ftp://host/x", "file://host/x", "relative/dir", "s3://"):
        with pytest.raises(ConfigError, match="RATH_STORE_URL"):
            open_objects(bad)
    with pytest.raises(ConfigError, match="must not carry credentials") as caught:
        open_objects("s3://AKIDEXAMPLE:not-a-real-secret@bucket/p")
    assert "not-a-real-secret" not in str(caught.value)
    with pytest.raises(ConfigError, match="must not carry credentials"):
        open_objects("az://container/p?sig=not-a-real-sas-token")


def test_settings_pick_the_url_else_the_store_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_HOME", str(tmp_path))
    monkeypatch.delenv("RATH_STORE_DIR", raising=False)
    monkeypatch.delenv("RATH_STORE_URL", raising=False)
    local = store_for(Settings.from_env())
    assert local.objects.describe() == str(tmp_path.resolve() / "store")
    monkeypatch.setenv("RATH_STORE_URL", (tmp_path / "shared").as_uri())
    settings = Settings.from_env()
    assert store_for(settings).objects.describe() == str(tmp_path / "shared")
    assert settings.sandboxes_dir == tmp_path.resolve() / "store" / "sandboxes"  # leases: local


def test_a_session_whose_rows_are_missing_is_named(
    s3_env: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rath.runtime  # noqa: F401  (installs the client's session host)
    from rath.session import Session, TableRef

    monkeypatch.setenv("RATH_STORE_URL", f"s3://{s3_env.new_bucket()}")
    session = Session(table=TableRef.sealed("ab" * 32))
    with pytest.raises(StoreError, match=f"session {session.id}: .*RATH_STORE_URL"):
        session.chunk_table  # noqa: B018


def test_gcs_and_azure_urls_open_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Opening makes no request; credentials are looked up on first use.
    assert isinstance(open_objects("gs://some-bucket/rath"), BucketStore)
    for name in ("AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match=r"az://container/rath.*docs/store\.md"):
        open_objects("az://container/rath")
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_NAME", "fakeaccount")
    assert isinstance(open_objects("az://container/rath"), BucketStore)
