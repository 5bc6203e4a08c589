"""The LLM activities' contracts: rounds, compression, images, embeddings. See docs/modules.md."""

from __future__ import annotations

from pydantic import ConfigDict

from rath.contracts._contract import ActivityContract
from rath.llm.chat_response import RathLLMTokenUsage
from rath.llm.provider import ProviderSpec
from rath.llm.stream import StreamOptions
from rath.llm.vlm import DEFAULT_IMAGE_PROMPT
from rath.session.table_ref import TableRef
from rath.utils.frozen import Frozen

REPLY_CHARS = 2000
"""How much of a run's final reply its result shows (history holds it once)."""


class ExecutorRef(Frozen):
    """A loop executor (``run_session_loop(executor=...)``) of the process that started a run."""

    id: str
    queue: str


class CompleteArgs(Frozen):
    """Input of ``rath.llm.complete``: references only, no transcript bytes."""

    agent_name: str
    provider: ProviderSpec
    system: TableRef
    transcript: TableRef
    tool_names: tuple[str, ...]
    round: int
    tool_schemas: str | None = None
    """Digest of the stored schemas of the run's other tools (custom and MCP), if any."""
    stream: StreamOptions | None = None
    """Stream the answer and publish its deltas to the run's workflow stream (``on_event``)."""
    executor: ExecutorRef | None = None
    """Ask this executor instead of the provider's endpoint."""


class ToolCallPlan(Frozen):
    """What the workflow needs to dispatch one tool call (not its arguments)."""

    index: int
    id: str
    name: str
    arguments_error: str | None
    resource_key: tuple[str, ...]
    preview: str


class CompleteResult(Frozen):
    """Output of ``rath.llm.complete``."""

    transcript: str
    assistant: str
    tool_calls: tuple[ToolCallPlan, ...]
    finish_reason: str
    usage: RathLLMTokenUsage | None
    model: str
    preview: str
    context_tokens: int = 0
    rows: int | None = None
    """Rows of the transcript, this reply included."""
    reply: str = ""
    """The reply's text (up to :data:`REPLY_CHARS`) when it ends the loop: no tool calls."""


class CompressArgs(Frozen):
    """Input of ``rath.llm.compress``: references only."""

    agent_name: str
    provider: ProviderSpec
    system: TableRef
    transcript: TableRef
    instruction: str | None = None
    executor: ExecutorRef | None = None
    """Ask this executor instead of the provider's endpoint."""


class CompressResult(Frozen):
    """Output of ``rath.llm.compress``: the summary USER row, by digest."""

    row: str
    usage: RathLLMTokenUsage | None
    preview: str


class DescribeImageArgs(Frozen):
    """Input of ``rath.llm.describe_image``: one image (bytes or a URL) and a prompt."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    provider: ProviderSpec
    prompt: str = DEFAULT_IMAGE_PROMPT
    image: bytes | None = None
    image_url: str | None = None
    mime: str = "image/png"
    agent_name: str = "vlm"


class DescribeImageResult(Frozen):
    """Output of ``rath.llm.describe_image``."""

    text: str
    usage: RathLLMTokenUsage | None


class EmbedArgs(Frozen):
    """Input of ``rath.llm.embed``: texts to embed with the provider's model."""

    provider: ProviderSpec
    texts: tuple[str, ...]
    query: bool = False


class EmbedResult(Frozen):
    """Output of ``rath.llm.embed``: one vector per text, in order."""

    model: str
    vectors: tuple[tuple[float, ...], ...]


COMPLETE = ActivityContract("rath.llm.complete", CompleteArgs, CompleteResult)
"""One chat completion for a session-loop round (streamed when ``stream`` is set)."""
COMPRESS = ActivityContract("rath.llm.compress", CompressArgs, CompressResult)
"""One tool-less completion that replaces a transcript with a single USER summary row."""
DESCRIBE_IMAGE = ActivityContract("rath.llm.describe_image", DescribeImageArgs, DescribeImageResult)
"""Ask a vision-capable model about one image."""
EMBED = ActivityContract("rath.llm.embed", EmbedArgs, EmbedResult)
"""Embed texts with the provider's embedding model."""
