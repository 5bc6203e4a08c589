"""OpenRath's direct embedding and VLM clients against real fake servers on loopback, and
their providers from the config file."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from rath.config import ConfigStore
from rath.errors import ConfigEntryNotFoundError, ConfigError
from rath.llm import (
    EmbeddingProvider,
    ProviderError,
    RathOpenAIEmbeddingClient,
    RathOpenAIVLMClient,
    VLMProvider,
)
from rath.memory import EmbeddingError
from rath.testing import FakeChatServer, error_reply, text_reply
from rath.testing.fake_embedder import FakeEmbeddingServer, trigram_embedding

PNG = b"\x89PNG\r\n\x1a\n not really a png"


def test_embeddings_in_order_with_retries_and_none_for_nothing() -> None:
    with FakeEmbeddingServer() as server:
        provider = EmbeddingProvider(
            model="fake-embedding", base_url=server.base_url, retry_base_seconds=0.01
        )
        client = RathOpenAIEmbeddingClient(provider)
        server.fail_next(503, times=1)
        vectors = client.embed(["hello", "world"])
        assert client.embed([]) == ()
        one = client.embed_one("hello")
        client.close()
    assert len(server.requests) == 3  # the 503 was retried; no request for no texts
    assert [list(v) for v in vectors] == [
        pytest.approx(trigram_embedding(t), abs=1e-9) for t in ("hello", "world")
    ]
    assert one == vectors[0]


def test_a_rejected_embedding_request_is_not_retried() -> None:
    with FakeEmbeddingServer() as server:
        client = RathOpenAIEmbeddingClient(
            EmbeddingProvider(model="m", base_url=server.base_url, api_key="test-key")
        )
        server.fail_next(400, message="bad input", times=1)
        with pytest.raises(EmbeddingError, match="HTTP 400") as info:
            client.embed(["x"])
        assert len(server.requests) == 1
        assert server.requests[0].authorization == "Bearer test-key"
    assert info.value.retryable is False


def test_clients_without_a_key_or_a_server_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="No API key found") as info:
        RathOpenAIEmbeddingClient(EmbeddingProvider(model="m"))
    assert isinstance(info.value, ValueError)
    with pytest.raises(ConfigError, match="No API key found"):
        RathOpenAIVLMClient(VLMProvider(model="m"))


def test_the_vlm_sends_the_image_and_retries_a_server_error(tmp_path: Path) -> None:
    script = [error_reply(500, "blip"), text_reply("A PNG signature."), text_reply("Again.")]
    with FakeChatServer(script) as server:
        provider = VLMProvider(model="fake-vlm", base_url=server.base_url, retry_base_seconds=0.01)
        client = RathOpenAIVLMClient(provider)
        assert client.describe(PNG, prompt="What is this?") == "A PNG signature."
        image = tmp_path / "shot.jpg"
        image.write_bytes(PNG)
        assert client.describe_path(image, prompt="And this?") == "Again."
        first, second = server.requests[1].body, server.requests[2].body
    text, picture = first["messages"][0]["content"]
    assert text == {"type": "text", "text": "What is this?"}
    encoded = base64.b64encode(PNG).decode()
    assert picture["image_url"]["url"] == f"data:image/png;base64,{encoded}"
    assert first["max_tokens"] == 512 and first["model"] == "fake-vlm"
    assert second["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/jpeg")


def test_a_vlm_error_that_retrying_cannot_fix_is_raised_at_once() -> None:
    with FakeChatServer([error_reply(401, "bad key"), text_reply("unused")]) as server:
        client = RathOpenAIVLMClient(VLMProvider(model="m", base_url=server.base_url))
        with pytest.raises(ProviderError):
            client.describe(PNG, prompt="?")
        assert len(server.requests) == 1


def test_providers_from_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps(
            {
                "llm": {
                    "default_provider": "main",
                    "vlm_provider": "eyes",
                    "providers": {
                        "main": {"model": "gpt-test", "api_key": "k", "base_url": "http://h/v1"},
                        "eyes": {"model": "vision-test", "max_tokens": 99},
                        "blind": {"api_key": "k"},
                        "emb": {"model": "embed-test"},
                    },
                }
            }
        )
    )
    store = ConfigStore(path)
    fallback = EmbeddingProvider.from_config(store=store)
    assert (fallback.model, fallback.api_key, fallback.base_url) == (
        "text-embedding-3-small",
        "k",
        "http://h/v1",
    )
    assert EmbeddingProvider.from_config("emb", store=store).model == "embed-test"
    eyes = VLMProvider.from_config(store=store)
    # OpenRath takes only the model, endpoint and key: max_tokens keeps its 512.
    assert (eyes.model, eyes.max_tokens) == ("vision-test", 512)
    assert VLMProvider.from_config("main", store=store, max_tokens=10).max_tokens == 10
    with pytest.raises(ConfigEntryNotFoundError, match="names no model"):
        VLMProvider.from_config("blind", store=store)
    with pytest.raises(ConfigEntryNotFoundError, match="available: blind, emb, eyes, main"):
        EmbeddingProvider.from_config("nope", store=store)
