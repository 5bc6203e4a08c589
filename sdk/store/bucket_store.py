"""An obstore backend: S3 and S3-compatibles (MinIO, R2), GCS, Azure. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import obstore
from obstore.exceptions import (
    AlreadyExistsError,
    BaseError,
    NotFoundError,
    NotSupportedError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from obstore.store import from_url

from rath.errors import ConfigError, SettingError, StoreError, StoreUnavailableError
from rath.store.objects import ObjectInfo

if TYPE_CHECKING:
    from obstore.store import ObjectStore, RetryConfig

_CREDENTIALS_HINT = (
    "check the credentials in this process's environment (AWS_ACCESS_KEY_ID and "
    "AWS_SECRET_ACCESS_KEY, GOOGLE_APPLICATION_CREDENTIALS, or AZURE_STORAGE_ACCOUNT_NAME and "
    "AZURE_STORAGE_ACCOUNT_KEY) and that they may read and write the bucket"
)
_ENDPOINT_HINT = (
    "check that the store is reachable from this host (AWS_ENDPOINT_URL, AWS_REGION; "
    "AWS_ALLOW_HTTP=true for a plain-HTTP endpoint such as a local MinIO)"
)


_MISSING = (FileNotFoundError, NotFoundError)
"""What obstore raises for a missing object (a ``FileNotFoundError``, or its own class)."""
_NOT_FOUND = "404 Not Found"
"""How obstore reports a listing of a bucket that does not exist (a generic error)."""
_CHECK_RETRY = timedelta(seconds=5)
"""The start check retries once, within this: it must fail in seconds, not in a minute."""


def _summary(exc: BaseException) -> str:
    """The first line of an obstore message (a debug dump follows it)."""
    line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return line if len(line) <= 300 else line[:297] + "..."


class BucketStore:
    """Objects under one URL of an object store (``s3://``, ``gs://``, ``az://``...)."""

    def __init__(
        self,
        url: str,
        *,
        max_retries: int = 6,
        retry_timeout: timedelta = timedelta(seconds=60),
    ) -> None:
        self.url = url
        retry: RetryConfig = {
            "max_retries": max_retries,
            "retry_timeout": retry_timeout,
            "backoff": {
                "init_backoff": timedelta(milliseconds=100),
                "max_backoff": timedelta(seconds=5),
                "base": 2,
            },
        }
        try:
            self._store: ObjectStore = from_url(url, retry_config=retry)
        except (BaseError, ValueError) as exc:
            raise ConfigError(
                f"RATH_STORE_URL={url!r} cannot be opened ({_summary(exc)}); see docs/store.md "
                "for the URL forms and the environment variables each store reads"
            ) from None
        self._retry = retry

    def __repr__(self) -> str:
        return f"BucketStore({self.url!r})"

    def check(self) -> None:
        """One listing request, retried once: fail in one line if the bucket cannot be used."""
        quick: RetryConfig = {**self._retry, "max_retries": 1, "retry_timeout": _CHECK_RETRY}
        store = from_url(self.url, retry_config=quick)
        where = f"the object store {self.url!r} (RATH_STORE_URL)"
        try:
            obstore.list_with_delimiter(store, "catalog/")
        except (PermissionDeniedError, UnauthenticatedError) as exc:
            raise SettingError(
                f"{where} refused access ({_summary(exc)}): {_CREDENTIALS_HINT}"
            ) from None
        except (*_MISSING, BaseError) as exc:
            if isinstance(exc, _MISSING) or _NOT_FOUND in str(exc):
                bucket = urlsplit(self.url).netloc
                raise SettingError(
                    f"{where} cannot be used: its bucket {bucket!r} does not exist (create it, "
                    "or fix RATH_STORE_URL; Rath does not create buckets)"
                ) from None
            raise SettingError(
                f"{where} did not answer ({_summary(exc)}): {_ENDPOINT_HINT}"
            ) from None

    def describe(self) -> str:
        """The URL."""
        return self.url

    @contextmanager
    def _errors(self, action: str, key: str) -> Iterator[None]:
        """Turn obstore's failures into Rath's (a missing object is the caller's business)."""
        try:
            yield
        except (PermissionDeniedError, UnauthenticatedError) as exc:
            raise StoreError(
                f"object store {self.url!r} refused to {action} {key!r} ({_summary(exc)}); "
                f"{_CREDENTIALS_HINT}"
            ) from None
        except _MISSING:
            raise
        except BaseError as exc:
            raise StoreUnavailableError(
                f"object store {self.url!r} failed to {action} {key!r} after retries "
                f"({_summary(exc)}); {_ENDPOINT_HINT}"
            ) from None

    def put(self, key: str, data: bytes, *, overwrite: bool = False) -> bool:
        """One conditional write (``If-None-Match: *``); False when the object exists."""
        with self._errors("write", key):
            if overwrite:
                obstore.put(self._store, key, data)
                return True
            try:
                obstore.put(self._store, key, data, mode="create")
            except AlreadyExistsError:
                return False
            except NotSupportedError:  # a store without conditional writes: look, then write
                if self.exists(key):
                    return False
                obstore.put(self._store, key, data)
            return True

    def get(self, key: str) -> bytes:
        """The object's bytes; ``FileNotFoundError`` when there is none."""
        try:
            with self._errors("read", key):
                return bytes(obstore.get(self._store, key).bytes())
        except _MISSING:
            raise FileNotFoundError(f"{self.url}/{key}") from None

    def exists(self, key: str) -> bool:
        """Whether ``key`` holds an object (one HEAD request)."""
        try:
            with self._errors("look up", key):
                obstore.head(self._store, key)
        except _MISSING:
            return False
        return True

    def delete(self, key: str) -> None:
        """Remove ``key``; a missing key is not an error."""
        try:
            with self._errors("delete", key):
                obstore.delete(self._store, key)
        except _MISSING:
            pass

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        """Every object whose key starts with ``prefix`` (listed by its folder, then filtered)."""
        folder = prefix.rpartition("/")[0]
        with self._errors("list", prefix or "/"):
            for batch in obstore.list(self._store, folder or None):
                for meta in batch:
                    key = meta["path"]
                    if key.startswith(prefix):
                        yield ObjectInfo(key, meta["last_modified"].timestamp(), meta["size"])
