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
    """Where Rath keeps its state and which Temporal it talks to.

    Attributes:
        home: The data dir (``RATH_HOME``, default ``~/.rath``): embedded server database,
            chunk store, allocated workspaces.
        address: ``TEMPORAL_ADDRESS``, else the address of the Temporal profile
            (``TEMPORAL_CONFIG_FILE``/``TEMPORAL_PROFILE``); ``None`` selects the embedded
            dev server.
        namespace: ``TEMPORAL_NAMESPACE``, else the profile's (default ``default``).
        queue_name: ``RATH_TASK_QUEUE`` (default ``rath``): the first part of every task queue
            name; the store's tag follows it (:attr:`task_queue`).
        store_dir: ``RATH_STORE_DIR`` (default ``<home>/store``): the local store directory
            (sandbox leases; and the chunk store when ``store_url`` is unset).
        store_url: ``RATH_STORE_URL``: where chunks and the session catalog live, shared by
            client and workers: ``file:///dir``, ``s3://bucket/prefix``, ``gs://bucket/prefix``
            or ``az://container/prefix`` (credentials and endpoint only from the environment,
            see ``docs/store.md``). ``None``: the directory ``store_dir``.
        search_attributes: ``RATH_SEARCH_ATTRIBUTES`` (default on; ``0`` turns it off): tag
            runs with ``RathSessionId``, ``RathRootSessionId`` and ``RathAgent``. The embedded
            server registers them; a cluster needs them created once (see the README).
        worker_id: ``RATH_WORKER_ID`` (default: the host name). Names this worker's own task
            queue (:attr:`affinity_queue`), where the tool calls of sandboxes it opened go.
            Workers sharing an id share that queue, so give one id to workers that share a
            host and data dir, and distinct ids otherwise.
        deployment_name: ``RATH_DEPLOYMENT_NAME`` (default unset): with ``build_id``, a
            ``rath worker`` joins this Temporal worker deployment (worker versioning; see
            docs/operators.md). Unset, workers are unversioned.
        build_id: ``RATH_BUILD_ID``: this worker's version within the deployment.
        versioning_behavior: ``RATH_VERSIONING_BEHAVIOR``, ``auto_upgrade`` (default: running
            sessions move to the current version at their next workflow task) or ``pinned``
            (they finish on the version that started them).
        set_current_version: ``RATH_SET_CURRENT_VERSION`` (default off): a versioned worker
            makes its version the deployment's current one once it polls.
        outage_seconds: ``RATH_CLIENT_OUTAGE_SECONDS`` (default 300): how long a client
            waiting on a run keeps reconnecting to an unreachable Temporal before it gives up
            (the run itself goes on; re-attach by its workflow id).
        exit_wait_seconds: ``RATH_EXIT_WAIT_SECONDS`` (default: no limit): how long a script
            that ends with runs it started and never read waits for them at exit.
        shutdown_grace_seconds: ``RATH_SHUTDOWN_GRACE_SECONDS`` (default 25): on SIGTERM or
            SIGINT a worker stops taking work and lets the calls it runs finish for this long,
            so a normal restart loses no attempt (keep it under your orchestrator's kill
            timeout, e.g. Kubernetes' 30 s).
        telemetry: ``RATH_OTEL`` (``1`` on, ``0`` off); unset, on when
            ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set. ``OTEL_SDK_DISABLED=true`` turns it off.
            Traces and metrics through OpenTelemetry (see :mod:`rath.telemetry`).
    """

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
        """The shared task queue: ``RATH_TASK_QUEUE``, then the store's tag (``rath-s3-...``).

        A run's queue names the store its worker must use: a worker with another store polls
        other queues, so it never takes the run (see docs/design.md, "Which worker runs what").
        """
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
    """The store ``url`` names, written one way: ``file:///abs/dir`` or ``s3://bucket/prefix``.

    A plain path and its ``file://`` URL are one store, and so are URLs that differ only in the
    scheme's case, ``.`` or ``..`` parts, or slashes at the ends of the prefix.
    """
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
