"""The model call of a commit made outside workflows: the official ``openai`` SDK, in process.

Inside a workflow the ``rath.memory.commit`` activity calls the model through the worker's
LLM activities (Temporal retries, worker-side credentials). Outside one there is no worker
to ask, so :func:`provider_chat` builds the same request (:func:`rath.llm._wire.build_request`)
and posts it with an SDK client that retries transient failures itself.
"""

from __future__ import annotations

import os

import openai
from openai.types.chat import ChatCompletion

from rath._runtime.credentials import VAULT
from rath.errors import ConfigError, LLMError
from rath.llm._http import error_message
from rath.llm._provider import Provider
from rath.llm._usage import TokenUsage
from rath.llm._wire import build_request, normalize_completion
from rath.memory._commit import Chat, ChatMessages
from rath.memory._errors import ExtractionError

SDK_RETRIES = 2
"""Retries the SDK makes on its own (429, 5xx, timeouts): no Temporal is retrying here."""


def provider_chat(provider: Provider) -> Chat:
    """A :data:`~rath.memory._commit.Chat` calling ``provider`` directly.

    The key is ``provider.api_key``, else the one its reference or ``api_key_env`` names
    (default ``OPENAI_API_KEY``), read in this process. It never leaves the process.

    Raises:
        ConfigError: The provider is the offline demo model (it cannot extract facts), or no
            model or no key and no ``base_url`` is configured.
    """
    if provider.provider_kind == "demo":
        raise ConfigError(
            "the offline demo model cannot extract memories: commit with a real provider "
            "(set OPENAI_API_KEY, or Provider(base_url=...) for an OpenAI-compatible server)"
        )
    base_url = provider.base_url or os.environ.get("OPENAI_BASE_URL") or None
    ref = provider.api_key_ref or (f"env:{provider.api_key_env}" if provider.api_key_env else None)
    key = provider.api_key or VAULT.resolve(ref, default_env="OPENAI_API_KEY")
    if key is None and base_url is None:
        raise ConfigError(
            "no API key to commit memories with: set OPENAI_API_KEY (or Provider(api_key_env="
            "'NAME')), or point Provider(base_url=...) at an OpenAI-compatible server"
        )
    model = provider.model or os.environ.get("OPENAI_DEFAULT_MODEL") or ""
    if not model:
        raise ConfigError("no model to commit memories with: set Provider(model=...)")
    options = provider.sampling_options()
    where = base_url or "OpenAI"
    secret = key or ""

    def redact(text: str) -> str:
        return text.replace(secret, "[redacted]") if len(secret) >= 8 else text

    def chat(messages: ChatMessages) -> tuple[str, TokenUsage | None]:
        request = build_request(list(messages), [], model=model, options=dict(options))
        client = openai.OpenAI(
            api_key=key or "unused",  # local servers ignore the key; the SDK requires one
            base_url=base_url,
            max_retries=SDK_RETRIES,
            timeout=provider.request_timeout or 600.0,
        )
        try:
            with client:
                completion = client.post("/chat/completions", body=request, cast_to=ChatCompletion)
        except openai.APIStatusError as exc:
            raise LLMError(
                f"{where} answered HTTP {exc.status_code} for model {model!r}: "
                f"{redact(error_message(exc))}"
            ) from None
        except openai.APIError as exc:
            raise LLMError(f"cannot get a reply from {where}: {redact(str(exc))}") from None
        result = normalize_completion(completion, round_index=1)
        text = (result.content or "").strip()
        if not text:
            raise ExtractionError(f"{where} sent an empty reply to the memory extraction prompt")
        return text, result.usage

    return chat
