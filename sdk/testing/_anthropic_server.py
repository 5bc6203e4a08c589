"""A real HTTP server on loopback speaking Anthropic's Messages protocol."""

from __future__ import annotations

from typing import ClassVar

from rath.testing._anthropic_wire import AnthropicWire
from rath.testing._server import FakeServer, Wire


class FakeAnthropicServer(FakeServer):
    """A scripted fake Anthropic Messages server (``POST /v1/messages``, JSON and streaming)."""

    wire: ClassVar[Wire] = AnthropicWire()
