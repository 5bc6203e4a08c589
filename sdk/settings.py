"""Process settings read from the environment (a value: no I/O beyond reading variables)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TASK_QUEUE = "rath"
DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Where Rath keeps its state and which Temporal it talks to.

    Attributes:
        home: The data dir (``RATH_HOME``, default ``~/.rath``): embedded server database,
            chunk store, allocated workspaces.
        address: ``TEMPORAL_ADDRESS``; ``None`` selects the embedded dev server.
        namespace: ``TEMPORAL_NAMESPACE`` (default ``default``).
        task_queue: ``RATH_TASK_QUEUE`` (default ``rath``).
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
    """

    home: Path
    address: str | None
    namespace: str
    task_queue: str
    store_dir: Path
    store_url: str | None = None
    search_attributes: bool = True
    worker_id: str = ""

    @classmethod
    def from_env(cls) -> Settings:
        """Read the settings from environment variables (see the class docstring)."""
        home = Path(os.environ.get("RATH_HOME") or "~/.rath").expanduser().resolve()
        store = os.environ.get("RATH_STORE_DIR")
        return cls(
            home=home,
            address=os.environ.get("TEMPORAL_ADDRESS") or None,
            namespace=os.environ.get("TEMPORAL_NAMESPACE") or DEFAULT_NAMESPACE,
            task_queue=os.environ.get("RATH_TASK_QUEUE") or DEFAULT_TASK_QUEUE,
            store_dir=Path(store).expanduser().resolve() if store else home / "store",
            store_url=os.environ.get("RATH_STORE_URL") or None,
            search_attributes=os.environ.get("RATH_SEARCH_ATTRIBUTES", "1").lower()
            not in ("0", "false", "off", "no"),
            worker_id=os.environ.get("RATH_WORKER_ID") or socket.gethostname(),
        )

    @property
    def embedded(self) -> bool:
        """True when no ``TEMPORAL_ADDRESS`` is set: Rath runs its own dev server and worker."""
        return self.address is None

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
