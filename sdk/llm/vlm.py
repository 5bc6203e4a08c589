"""Image description: the default prompt, and OpenRath's names at this path.

OpenRath's ``VLMProvider`` and ``RathOpenAIVLMClient`` load on first use (PEP 562) from
:mod:`rath.llm.vlm_provider`, which calls a model; the prompt is a value the
``rath.llm.describe_image`` activity's contract shares.
"""

from __future__ import annotations

from rath.utils.lazy import lazy_names

DEFAULT_IMAGE_PROMPT = "Describe this image."
"""What :func:`rath.llm.describe_image` asks about an image when the caller gives no prompt."""

__getattr__ = lazy_names(
    __name__, dict.fromkeys(("RathOpenAIVLMClient", "VLMProvider"), "rath.llm.vlm_provider")
)
