"""From a store URL (``RATH_STORE_URL``) to the object store it names. See docs/modules.md."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from rath.errors import ConfigError
from rath.settings import Settings
from rath.store.objects import DirectoryStore, ObjectStore

BUCKET_SCHEMES = frozenset({"s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl"})
"""URL schemes served by :class:`~rath.store.bucket_store.BucketStore`."""


def store_url(settings: Settings) -> str:
    """The chunk store URL ``settings`` name: ``RATH_STORE_URL``, else ``file://<store_dir>``."""
    return settings.store_url or settings.store_dir.as_uri()


def open_objects(url: str) -> ObjectStore:
    """The object store behind ``url``.

    Raises:
        ConfigError: The URL has an unknown scheme, is not absolute, or carries credentials.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if not scheme and url.startswith("/"):
        return DirectoryStore(Path(url))
    if scheme == "file":
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            raise ConfigError(
                f"RATH_STORE_URL={url!r} is not an absolute file URL; write file:///abs/dir"
            )
        return DirectoryStore(Path(unquote(parts.path)))
    if scheme not in BUCKET_SCHEMES:
        raise ConfigError(
            f"RATH_STORE_URL={url!r} has an unknown scheme; use file:///dir, "
            "s3://bucket/prefix, gs://bucket/prefix or az://container/prefix"
        )
    if parts.password is not None or parts.query or parts.fragment:
        # Never echo the URL: it may hold a secret.
        raise ConfigError(
            f"RATH_STORE_URL ({scheme}://...) must not carry credentials or options; give "
            "only the bucket and prefix and set credentials and endpoint in the environment "
            "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, ...)"
        )
    if not parts.netloc:
        raise ConfigError(f"RATH_STORE_URL={url!r} names no bucket; write {scheme}://bucket/prefix")
    from rath.store.bucket_store import BucketStore  # obstore loads only for a bucket URL

    return BucketStore(url)
