"""``ProviderError``: a model call that failed, classified once by the client that made it."""

from __future__ import annotations

from rath.errors import LLMError


class ProviderError(LLMError):
    """A model call failed, classified once by the client that made it (docs/providers.md).

    ``error_type`` (``LLMHTTP<status>``, ``LLMTimeout``, ...) becomes the activity's
    ``ApplicationError`` type; ``retryable``, ``retry_after`` (seconds) and ``status`` say how.
    """

    def __init__(
        self,
        message: str,
        *,
        error_type: str,
        retryable: bool,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status

    @property
    def auth_rejected(self) -> bool:
        """True for 401 and 403: this key was refused, another key may not be."""
        return self.status in (401, 403)
