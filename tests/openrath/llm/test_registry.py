"""OpenRath inventory 1.8: ``register_chat_client(kind, factory(provider))`` with a sync client.

OpenRath's factories take the ``Provider`` and build a synchronous client whose ``complete``
takes a ``RathLLMChatRequest``. Rath takes them as they are: the client answers a durable
run's model calls on the worker, with the provider rebuilt there.
"""

from __future__ import annotations

from support import FAST

from rath import flow
from rath.llm import Provider, register_chat_client
from rath.llm.dto import (
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatRequest,
    RathLLMChatResponse,
)
from rath.session import Session
from rath.settings import Settings


class Shouting:
    """An OpenRath-style client: ``provider`` and a synchronous ``complete``."""

    built: list[Provider] = []

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        Shouting.built.append(provider)

    def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        last = req.messages[-1].content or ""
        message = RathLLMAssistantMessage(
            content=f"{last.upper()} ({req.model}, {req.temperature})"
        )
        return RathLLMChatResponse(
            id="x",
            choices=(RathLLMChatChoice(index=0, finish_reason="stop", message=message),),
            created=0,
            model=req.model or "",
        )


def test_an_openrath_factory_serves_a_durable_agent(rath_env: Settings) -> None:
    register_chat_client("shouting", Shouting)
    provider = Provider(model="shouting:loud-1", temperature=0.5, api_key="test-key")
    out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("hello"))
    assert out.chunk_table.rows[-1].payload["content"] == "HELLO (loud-1, 0.5)"
    built = Shouting.built[-1]
    assert (built.provider_kind, built.model, built.api_key) == (
        "shouting",
        "loud-1",
        "test-key",
    )
