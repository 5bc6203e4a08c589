"""Azure OpenAI endpoints: which base URLs are Azure's, and how each style is called.

A ``base_url`` on an Azure host (``*.openai.azure.com``, ``*.cognitiveservices.azure.com``,
``*.services.ai.azure.com``) or ending in ``/openai`` is Azure's. Its ``/openai/v1`` endpoints
speak plain OpenAI; the older ``/openai`` ones (deployments and ``api-version``) need the SDK's
``AzureOpenAI`` client. Keys come from ``AZURE_OPENAI_API_KEY`` or ``AZURE_API_KEY`` first.
"""

from __future__ import annotations

import os
from typing import Literal
from urllib.parse import urlsplit

AZURE_KEY_ENVS = ("AZURE_OPENAI_API_KEY", "AZURE_API_KEY")
DEFAULT_API_VERSION = "2024-10-21"
_AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")


def azure_style(base_url: str | None) -> Literal["v1", "legacy"] | None:
    """``"v1"`` or ``"legacy"`` for an Azure OpenAI base URL, ``None`` for any other."""
    if not base_url:
        return None
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    on_azure = (parts.hostname or "").endswith(_AZURE_HOSTS)
    if path.endswith("/openai/v1"):
        return "v1" if on_azure else None
    if path.endswith("/openai") or (on_azure and path == ""):
        return "legacy"
    return "v1" if on_azure else None


def azure_endpoint(base_url: str) -> str:
    """The resource URL ``AzureOpenAI`` wants: the base URL without its ``/openai``."""
    trimmed = base_url.rstrip("/")
    return trimmed.removesuffix("/openai")


def azure_api_version() -> str:
    """``OPENAI_API_VERSION``, else ``AZURE_OPENAI_API_VERSION``, else ``2024-10-21``."""
    return (
        os.environ.get("OPENAI_API_VERSION")
        or os.environ.get("AZURE_OPENAI_API_VERSION")
        or DEFAULT_API_VERSION
    )
