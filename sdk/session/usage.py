"""OpenRath's token usage as a session reports it, over Rath's recorded three counts."""

from __future__ import annotations

from rath.llm.chat_response import RathLLMTokenUsage


class SessionTokenUsage(RathLLMTokenUsage):
    """OpenRath's token usage, as a session reports it (:attr:`Session.cumulative_usage`)."""

    def counts(self) -> tuple[int, int, int]:
        """``(prompt_tokens, completion_tokens, total_tokens)``."""
        return counts_of(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RathLLMTokenUsage):
            return self.counts() == counts_of(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.counts())

    def __add__(self, other: RathLLMTokenUsage) -> SessionTokenUsage:
        prompt, completion, total = (
            a + b for a, b in zip(self.counts(), counts_of(other), strict=True)
        )
        return SessionTokenUsage(prompt, completion, total)

    def __repr__(self) -> str:
        return (
            f"SessionTokenUsage(prompt_tokens={self.prompt_tokens}, "
            f"completion_tokens={self.completion_tokens}, total_tokens={self.total_tokens})"
        )

    @classmethod
    def of(cls, usage: RathLLMTokenUsage | None) -> SessionTokenUsage | None:
        """Rath's recorded usage as OpenRath's type (``None`` stays ``None``)."""
        return None if usage is None else cls(*counts_of(usage))


UsageLike = RathLLMTokenUsage
"""A usage a session accepts (OpenRath's type, or Rath's recorded counts, which are one)."""


def counts_of(usage: RathLLMTokenUsage) -> tuple[int, int, int]:
    """The three counts of a usage."""
    return (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)


def recorded_usage(usage: RathLLMTokenUsage | None) -> RathLLMTokenUsage | None:
    """``usage`` as Rath records it (the three counts)."""
    return None if usage is None else RathLLMTokenUsage(*counts_of(usage))
