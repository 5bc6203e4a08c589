"""Process settings read from the environment (a value: no I/O beyond reading variables)."""

from __future__ import annotations

import hashlib
import os
import posixpath
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from rath.errors import ConfigError
from rath.utils.profile import profile_value

DEFAULT_TASK_QUEUE = "rath"
DEFAULT_NAMESPACE = "default"
VERSIONING_BEHAVIORS = ("auto_upgrade", "pinned")
_OFF = ("0", "false", "off", "no")
DEFAULT_SHUTDOWN_GRACE_SECONDS = 25.0
DEFAULT_OUTAGE_SECONDS = 300.0


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Where Rath keeps its state and which Temporal it talks to."""

    home: Path
    address: str | None
    namespace: str
    queue_name: str
    store_dir: Path
    store_url: str | None = None
    search_attributes: bool = True
    worker_id: str = ""
    deployment_name: str | None = None
    build_id: str | None = None
    versioning_behavior: str = "auto_upgrade"
    set_current_version: bool = False
    shutdown_grace_seconds: float = DEFAULT_SHUTDOWN_GRACE_SECONDS
    outage_seconds: float = DEFAULT_OUTAGE_SECONDS
    exit_wait_seconds: float | None = None
    telemetry: bool = False

    @classmethod
    def from_env(cls) -> Settings:
        """Read the settings from environment variables (see the class docstring)."""
        home = Path(os.environ.get("RATH_HOME") or "~/.rath").expanduser().resolve()
        store = os.environ.get("RATH_STORE_DIR")
        deployment = os.environ.get("RATH_DEPLOYMENT_NAME") or None
        build_id = os.environ.get("RATH_BUILD_ID") or None
        if (deployment is None) != (build_id is None):
            raise ConfigError(
                "worker versioning needs both RATH_DEPLOYMENT_NAME and RATH_BUILD_ID "
                f"(got RATH_DEPLOYMENT_NAME={deployment!r}, RATH_BUILD_ID={build_id!r})"
            )
        if deployment is not None and "." in deployment:
            raise ConfigError(f"RATH_DEPLOYMENT_NAME must not contain '.': {deployment!r}")
        behavior = (os.environ.get("RATH_VERSIONING_BEHAVIOR") or "auto_upgrade").lower()
        behavior = behavior.replace("-", "_")
        if behavior not in VERSIONING_BEHAVIORS:
            raise ConfigError(
                f"RATH_VERSIONING_BEHAVIOR must be one of {', '.join(VERSIONING_BEHAVIORS)}, "
                f"not {behavior!r}"
            )
        queue_name = os.environ.get("RATH_TASK_QUEUE") or DEFAULT_TASK_QUEUE
        if "/" in queue_name or "@" in queue_name:
            raise ConfigError(
                f"RATH_TASK_QUEUE={queue_name!r} contains '/' or '@', which Rath keeps for the "
                "queues of user code (<queue>/workflow/<Class>, <queue>/tool/<name>) and of "
                "each worker (<queue>@<worker id>): pick a name without them"
            )
        return cls(
            home=home,
            address=os.environ.get("TEMPORAL_ADDRESS") or profile_value("address"),
            namespace=(
                os.environ.get("TEMPORAL_NAMESPACE")
                or profile_value("namespace")
                or DEFAULT_NAMESPACE
            ),
            queue_name=queue_name,
            store_dir=Path(store).expanduser().resolve() if store else home / "store",
            store_url=os.environ.get("RATH_STORE_URL") or None,
            search_attributes=os.environ.get("RATH_SEARCH_ATTRIBUTES", "1").lower() not in _OFF,
            worker_id=os.environ.get("RATH_WORKER_ID") or socket.gethostname(),
            deployment_name=deployment,
            build_id=build_id,
            versioning_behavior=behavior,
            set_current_version=os.environ.get("RATH_SET_CURRENT_VERSION", "0").lower() not in _OFF,
            shutdown_grace_seconds=_seconds(
                "RATH_SHUTDOWN_GRACE_SECONDS", DEFAULT_SHUTDOWN_GRACE_SECONDS
            ),
            outage_seconds=_seconds("RATH_CLIENT_OUTAGE_SECONDS", DEFAULT_OUTAGE_SECONDS),
            exit_wait_seconds=(
                _seconds("RATH_EXIT_WAIT_SECONDS", 0.0)
                if os.environ.get("RATH_EXIT_WAIT_SECONDS")
                else None
            ),
            telemetry=_telemetry(),
        )

    @property
    def embedded(self) -> bool:
        """True when no ``TEMPORAL_ADDRESS`` is set: Rath runs its own dev server and worker."""
        return self.address is None

    @property
    def versioned(self) -> bool:
        """True when ``RATH_DEPLOYMENT_NAME`` and ``RATH_BUILD_ID`` put workers in a deployment."""
        return self.deployment_name is not None and self.build_id is not None

    @property
    def store_tag(self) -> str:
        """The chunk store in a task queue name: its kind and a hash (``file-1a2b3c4d``)."""
        return store_tag(self.store_url or self.store_dir.as_uri())

    @property
    def task_queue(self) -> str:
        """The shared task queue: ``RATH_TASK_QUEUE``, then the store's tag (``rath-s3-...``)."""
        return f"{self.queue_name}-{self.store_tag}"

    @property
    def affinity_queue(self) -> str:
        """This worker's own task queue: tool calls of sandboxes it opened are routed here."""
        return f"{self.task_queue}@{self.worker_id}"

    @property
    def sandboxes_dir(self) -> Path:
        """The sandbox lease registry, next to the chunk store (clients and workers share it)."""
        return self.store_dir / "sandboxes"

    @property
    def workspaces_dir(self) -> Path:
        """Where workspaces are allocated for sessions placed with no ``working_dir``."""
        return self.home / "workspaces"


def store_identity(url: str) -> str:
    """The store ``url`` names, written one way: ``file:///abs/dir`` or ``s3://bucket/prefix``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("", "file"):
        path = unquote(parts.path) if scheme else url
        return "file://" + posixpath.normpath(path)
    return f"{scheme}://{parts.netloc}/{parts.path.strip('/')}".rstrip("/")


def store_tag(url: str) -> str:
    """``<kind>-<8 hex>``: the store's scheme and a hash of :func:`store_identity`."""
    identity = store_identity(url)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    return f"{identity.partition(':')[0]}-{digest}"


def _telemetry() -> bool:
    """``RATH_OTEL`` when set, else whether an OTLP endpoint is configured."""
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    switch = os.environ.get("RATH_OTEL")
    if switch:
        return switch.lower() not in _OFF
    return bool(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def _seconds(name: str, default: float) -> float:
    """A non-negative number of seconds from the environment variable ``name``."""
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise ConfigError(f"{name} must be a number of seconds, not {text!r}")
    return value
