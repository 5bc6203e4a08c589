"""OpenRath inventory 1.8: the synchronous chat-client API and its registry.

``chat_client_for(provider)`` returns OpenRath's synchronous client for the provider's kind;
``register_chat_client(kind, factory(provider))`` adds a kind.

OpenRath's factories take the ``Provider`` and build a synchronous client whose ``complete``
takes a ``RathLLMChatRequest``. Rath takes them as they are: the client answers a durable
run's model calls on the worker, with the provider rebuilt there.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import FAST

from rath import flow
from rath.errors import ConfigError
from rath.llm import (
    ChatClient,
    Provider,
    RathAnthropicChatClient,
    RathOpenAIChatClient,
    StreamingChatClient,
    chat_client_for,
    register_chat_client,
    registered_kinds,
)
from rath.llm.aio import async_chat_client_for
from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage
from rath.llm.chat_response import RathLLMAssistantMessage, RathLLMChatChoice, RathLLMChatResponse
from rath.session import Session, run_session_loop
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply


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


def test_the_default_kind_is_openai_and_both_built_ins_are_registered() -> None:
    assert {"anthropic", "openai"} <= set(registered_kinds())
    openai = chat_client_for(Provider(model="m", api_key="test-key"))
    assert type(openai) is RathOpenAIChatClient
    anthropic = chat_client_for(Provider(model="c", provider_kind="anthropic", api_key="k"))
    assert type(anthropic) is RathAnthropicChatClient
    for client in (openai, anthropic):
        assert isinstance(client, ChatClient) and isinstance(client, StreamingChatClient)
        client.close()  # type: ignore[attr-defined]


def test_the_client_answers_synchronously() -> None:
    with FakeChatServer([text_reply("pong", usage=(3, 1))]) as server:
        client = chat_client_for(Provider(model="fake-model", base_url=server.base_url))
        response = client.complete(RathLLMChatRequest(messages=[RathLLMMessage("user", "ping")]))
        assert client.provider.base_url == server.base_url
    assert response.primary_choice.message.content == "pong"
    assert response.usage is not None and response.usage.total_tokens == 4


def test_an_unknown_kind_is_a_value_error_listing_the_kinds() -> None:
    with pytest.raises(
        ValueError, match=r"unknown provider_kind='nope'; registered kinds: .*openai"
    ):
        chat_client_for(Provider(model="m", provider_kind="nope"))


def test_a_registered_factory_builds_the_client() -> None:
    register_chat_client("shouting-direct", Shouting)
    provider = Provider(model="shouting-direct:loud-2", api_key="test-key")
    client = chat_client_for(provider)
    assert isinstance(client, Shouting) and isinstance(client, ChatClient)
    assert not isinstance(client, StreamingChatClient)  # no complete_stream
    request = RathLLMChatRequest(messages=[RathLLMMessage("user", "hi")], model="loud-2")
    assert client.complete(request).primary_choice.message.content == "HI (loud-2, None)"


def test_a_kind_with_only_an_async_client_says_where_to_get_it() -> None:
    register_chat_client("echo-async", lambda spec, key: async_chat_client_for(spec))
    with pytest.raises(ConfigError, match=r"async_chat_client_for\(provider\)"):
        chat_client_for(Provider(model="echo-async:m"))


def _build(provider: Provider) -> Shouting:
    return Shouting(provider)


@pytest.mark.parametrize("factory", [Shouting, _build], ids=["class", "function"])
def test_on_event_with_a_client_that_cannot_stream_is_a_type_error(
    factory: Callable[[Provider], Shouting],
) -> None:
    # Issue 29 item 6: refused before anything runs (OpenRath's resolve_executor), when read.
    # A class is only read; a factory function's client is built to look.
    kind = f"shouting-quiet-{factory.__name__}"
    register_chat_client(kind, factory)
    out = run_session_loop(
        Session.from_user_message("hello"),
        Session.from_agent_prompt("x"),
        agent_provider=Provider(provider_kind=kind, model="loud-1", api_key="test-key"),
        on_event=lambda delta: None,
    )
    with pytest.raises(TypeError, match=f"the Shouting of provider kind '{kind}'"):
        out.synchronize()
