"""Memory tests run their activities on workers of their own, without Rath's plugin.

The plugin registers the memory activities itself; these tests register their own instances
(with their own stores and fakes), so their client carries only the pydantic converter.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter


@pytest.fixture
async def client(server_address: str) -> AsyncIterator[Client]:
    """A client with the pydantic converter and no plugin."""
    yield await Client.connect(server_address, data_converter=pydantic_data_converter)
