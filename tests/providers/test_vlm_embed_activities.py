"""``rath.llm.describe_image`` and ``rath.llm.embed`` as workflow activities on a real worker."""

from __future__ import annotations

import asyncio
import base64
import uuid
from datetime import timedelta

import pytest
from support import fake_provider
from temporalio import workflow
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Worker
from wires import WIRES, fake_server, provider_for

from rath.activities.llm import LLMActivities
from rath.contracts.llm import DescribeImageArgs, DescribeImageResult, EmbedArgs, EmbedResult
from rath.llm import Provider, ProviderSpec
from rath.llm.credentials import VAULT
from rath.llm.provider import spec_from_provider
from rath.settings import Settings
from rath.store import store_at
from rath.testing import error_reply, text_reply
from rath.testing.fake_embedder import FakeEmbeddingServer, trigram_embedding

PNG = b"\x89PNG\r\n\x1a\n not really a png"
RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=100), maximum_attempts=3)


@workflow.defn(name="test.DescribeImage", sandboxed=False)
class DescribeImageWorkflow:
    """Describe one image with the activity, as workflow code would."""

    @workflow.run
    async def run(self, args: DescribeImageArgs) -> DescribeImageResult:
        return await workflow.execute_activity(
            "rath.llm.describe_image",
            args,
            result_type=DescribeImageResult,
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RETRY,
        )


@workflow.defn(name="test.Embed", sandboxed=False)
class EmbedWorkflow:
    """Embed texts with the activity."""

    @workflow.run
    async def run(self, args: EmbedArgs) -> EmbedResult:
        return await workflow.execute_activity(
            "rath.llm.embed",
            args,
            result_type=EmbedResult,
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RETRY,
        )


async def _run(client: Client, settings: Settings, workflow_cls: type, args: object) -> object:
    # ``client`` has no Rath plugin: this worker runs only these two activities.
    activities = LLMActivities(store_at(settings.store_dir), VAULT)
    queue = f"llm-{uuid.uuid4().hex[:8]}"
    async with (
        activities.running(),  # closes its HTTP clients, as the plugin's workers do
        Worker(
            client,
            task_queue=queue,
            workflows=[workflow_cls],
            activities=[activities.describe_image, activities.embed],
        ),
    ):
        return await asyncio.wait_for(
            client.execute_workflow(
                workflow_cls.run,  # type: ignore[attr-defined]
                args,
                id=f"llm-test-{uuid.uuid4().hex[:8]}",
                task_queue=queue,
            ),
            60,
        )


def _spec(provider: Provider) -> ProviderSpec:
    return spec_from_provider(
        provider, api_key_ref=VAULT.register("test-key-0123456789"), demo_fallback=False
    )


@pytest.mark.parametrize("wire", WIRES)
async def test_describe_image_activity(wire: str, bare_client: Client, rath_env: Settings) -> None:
    script = [error_reply(500, "blip"), text_reply("A PNG signature.", usage=(30, 4))]
    with fake_server(wire, script) as server:
        spec = _spec(provider_for(wire, server.base_url, api_key=None))
        args = DescribeImageArgs(provider=spec, prompt="What is this?", image=PNG)
        result = await _run(bare_client, rath_env, DescribeImageWorkflow, args)
        assert len(server.requests) == 2  # the 500 was retried by Temporal
        body = server.requests[1].body
    assert isinstance(result, DescribeImageResult)
    assert result.text == "A PNG signature."
    assert result.usage is not None and result.usage.total_tokens == 34
    encoded = base64.b64encode(PNG).decode()
    part = body["messages"][0]["content"][1]
    if wire == "openai":
        assert part["image_url"]["url"] == f"data:image/png;base64,{encoded}"
    else:
        assert part["source"] == {"type": "base64", "media_type": "image/png", "data": encoded}


async def test_describe_image_needs_exactly_one_image(
    bare_client: Client, rath_env: Settings
) -> None:
    spec = ProviderSpec(kind="openai", model="m", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(WorkflowFailureError) as caught:
        await _run(bare_client, rath_env, DescribeImageWorkflow, DescribeImageArgs(provider=spec))
    cause = caught.value.cause
    assert isinstance(cause, ActivityError) and isinstance(cause.cause, ApplicationError)
    assert (cause.cause.type, cause.cause.non_retryable) == ("ConfigError", True)


async def test_embed_activity(bare_client: Client, rath_env: Settings) -> None:
    with FakeEmbeddingServer() as server:
        spec = spec_from_provider(
            fake_provider(server, model="fake-embedding", api_key=None), demo_fallback=False
        )
        args = EmbedArgs(provider=spec, texts=("hello", "world"))
        result = await _run(bare_client, rath_env, EmbedWorkflow, args)
    assert isinstance(result, EmbedResult)
    assert result.model == "fake-embedding"
    assert [list(v) for v in result.vectors] == [
        pytest.approx(trigram_embedding(t), abs=1e-9) for t in ("hello", "world")
    ]


async def test_anthropic_has_no_embeddings(bare_client: Client, rath_env: Settings) -> None:
    spec = ProviderSpec(kind="anthropic", model="claude-x")
    with pytest.raises(WorkflowFailureError) as caught:
        await _run(bare_client, rath_env, EmbedWorkflow, EmbedArgs(provider=spec, texts=("x",)))
    cause = caught.value.cause
    assert isinstance(cause, ActivityError) and isinstance(cause.cause, ApplicationError)
    assert cause.cause.type == "ConfigError"
    assert "no embedder for provider kind 'anthropic'" in cause.cause.message
