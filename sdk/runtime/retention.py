"""How long the embedded server keeps closed runs (``RATH_RETENTION_DAYS``). See docs/modules.md."""

from __future__ import annotations

import os

from google.protobuf.duration_pb2 import Duration
from temporalio.api.namespace.v1 import NamespaceConfig
from temporalio.api.workflowservice.v1 import UpdateNamespaceRequest
from temporalio.client import Client

from rath.errors import ConfigError

DEFAULT_RETENTION_DAYS = 7.0


def retention_days() -> float:
    """``RATH_RETENTION_DAYS`` (at least 1, as Temporal requires).

    Raises:
        ConfigError: Not a number of at least 1.
    """
    text = os.environ.get("RATH_RETENTION_DAYS")
    if not text:
        return DEFAULT_RETENTION_DAYS
    try:
        days = float(text)
    except ValueError:
        days = 0.0
    if days < 1:
        raise ConfigError(f"RATH_RETENTION_DAYS must be a number of days, at least 1: {text!r}")
    return days


async def keep_closed_runs(address: str, namespace: str = "default") -> None:
    """Set the embedded server's retention of closed runs to :func:`retention_days`."""
    client = await Client.connect(address, namespace=namespace)
    ttl = Duration(seconds=int(retention_days() * 86_400))
    await client.workflow_service.update_namespace(
        UpdateNamespaceRequest(
            namespace=namespace, config=NamespaceConfig(workflow_execution_retention_ttl=ttl)
        )
    )
