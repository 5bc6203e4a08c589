"""OpenRath's token usage as a session reports it, over Rath's recorded ``TokenUsage``."""

from __future__ import annotations

from rath.llm._usage import TokenUsage
from rath.llm.dto import RathLLMTokenUsage


class SessionTokenUsage(RathLLMTokenUsage):
    """OpenRath's token usage, as a session reports it (:attr:`Session.cumulative_usage`).

    A :class:`~rath.llm.dto.RathLLMTokenUsage` that compares equal to, and adds (``+``) with,
    any usage of the same three counts: OpenRath's type or Rath's ``TokenUsage``. The detail
    dicts are not kept (Rath records only the counts).
    """

    def counts(self) -> tuple[int, int, int]:
        """``(prompt_tokens, completion_tokens, total_tokens)``."""
        return (self.prompt_tokens, self.completion_tokens, self.total_tokens)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RathLLMTokenUsage | TokenUsage):
            return self.counts() == counts_of(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.counts())

    def __add__(self, other: RathLLMTokenUsage | TokenUsage) -> SessionTokenUsage:
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
    def of(cls, usage: TokenUsage | None) -> SessionTokenUsage | None:
        """Rath's recorded usage as OpenRath's type (``None`` stays ``None``)."""
        return None if usage is None else cls(*counts_of(usage))


UsageLike = RathLLMTokenUsage | TokenUsage
"""A usage a session accepts: OpenRath's type or Rath's."""


def counts_of(usage: UsageLike) -> tuple[int, int, int]:
    """The three counts of either usage type."""
    return (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)


def recorded_usage(usage: UsageLike | None) -> TokenUsage | None:
    """``usage`` as Rath records it (the three counts)."""
    if usage is None or isinstance(usage, TokenUsage):
        return usage
    prompt, completion, total = counts_of(usage)
    return TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)
