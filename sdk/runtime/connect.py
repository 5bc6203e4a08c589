"""Connecting to Temporal; a failure names the setting to fix, in one line. See docs/modules.md."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from temporalio.client import Client, Plugin
from temporalio.envconfig import ClientConfig

from rath.errors import ConnectError
from rath.settings import Settings
from rath.telemetry import install as install_telemetry

CONNECT_SECONDS = 15.0
"""A connection that is not up by then fails (an unreachable address, a TLS handshake hang)."""

_HINTS = (
    (
        ("certificate", "UnknownIssuer", "tls", "TLS", "handshake", "InvalidCertificate"),
        "check TEMPORAL_TLS_SERVER_CA_CERT_PATH (or _DATA), TEMPORAL_TLS_SERVER_NAME and the "
        "client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH)",
    ),
    (
        ("Unauthenticated", "unauthorized", "api key", "API key", "PermissionDenied"),
        "check TEMPORAL_API_KEY (or the profile's api_key)",
    ),
    (
        ("Connection refused", "tcp connect", "dns error", "No such host", "timed out"),
        "check TEMPORAL_ADDRESS (host:port), and that the server is up",
    ),
)


def connect_config(settings: Settings, address: str) -> dict[str, Any]:
    """``Client.connect`` keywords for ``address``: the profile's TLS and key for a cluster.

    Raises:
        ConnectError: A TLS file the settings name does not exist or cannot be read.
    """
    if settings.embedded:
        return {"target_host": address, "namespace": settings.namespace}
    try:
        loaded = ClientConfig.load_client_connect_config()
    except FileNotFoundError as exc:
        raise ConnectError(
            f"cannot read {exc.filename!r}, named by the TEMPORAL_TLS_* settings (or the "
            "profile's tls section): fix the path"
        ) from None
    except (OSError, ValueError) as exc:
        raise ConnectError(f"the Temporal connection settings are invalid: {exc}") from None
    config: dict[str, Any] = dict(loaded)
    config.update(target_host=address, namespace=settings.namespace)
    return config


async def connect(
    settings: Settings,
    address: str,
    plugins: Sequence[Plugin],
    *,
    timeout: float = CONNECT_SECONDS,
) -> Client:
    """A client of ``address`` with ``plugins``.

    Raises:
        ConnectError: It could not connect within ``timeout`` seconds (default
            :data:`CONNECT_SECONDS`); one line says why and which setting to look at.
    """
    runtime = install_telemetry(settings)
    config = connect_config(settings, address)
    if runtime is not None:
        config["runtime"] = runtime
    where = f"Temporal at {address} (namespace {settings.namespace!r})"
    try:
        return await asyncio.wait_for(Client.connect(**config, plugins=list(plugins)), timeout)
    except TimeoutError:
        raise ConnectError(
            f"{where} did not answer within {timeout:g} s: check TEMPORAL_ADDRESS, and "
            "TEMPORAL_TLS_* if the server expects TLS"
        ) from None
    except RuntimeError as exc:
        tls = bool(config.get("tls"))
        raise ConnectError(f"cannot connect to {where}: {_hint(str(exc), tls)}") from None


_DROPPED = (
    "broken pipe",
    "BrokenPipe",
    "Connection reset",
    "ConnectionReset",
    "stream closed",
    "connection closed",
)
"""How a TLS server that refused the client's certificate looks from the client (TLS 1.3)."""


def _hint(detail: str, tls: bool) -> str:
    if tls and any(needle in detail for needle in _DROPPED):
        return f"{_HINTS[0][1]}; the server dropped the connection ({_short(detail)})"
    for needles, advice in _HINTS:
        if any(needle in detail for needle in needles):
            return f"{advice} ({_short(detail)})"
    return _short(detail)


def _short(detail: str) -> str:
    detail = " ".join(detail.split())
    return detail if len(detail) <= 300 else detail[:297] + "..."
