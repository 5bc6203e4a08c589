"""A worker's pooled model clients are closed when the worker stops, on its own loop."""

from __future__ import annotations

import pytest
from support import FAST, kinds
from wires import WIRES, fake_server, provider_for

from rath import flow
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session
from rath.settings import Settings
from rath.testing import text_reply


@pytest.mark.parametrize("wire", WIRES)
def test_stopping_the_worker_closes_its_model_connections(wire: str, rath_env: Settings) -> None:
    with fake_server(wire, [text_reply("hello")]) as server:
        agent = flow.Agent("x", provider=provider_for(wire, server.base_url), options=FAST)
        assert kinds(agent(Session.from_user_message("go"))) == ["user", "assistant"]
        # The client keeps its connection for the next call ...
        with pytest.raises(TimeoutError):
            server.wait_until_disconnected(timeout=0.2)
        # ... until the worker stops and closes it (not left for the garbage collector).
        shutdown_runtime(rath_env)
        server.wait_until_disconnected(timeout=10)
