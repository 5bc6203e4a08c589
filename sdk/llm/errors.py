"""``ProviderError``: a model call that failed, classified once by the client that made it."""

from __future__ import annotations

from rath.errors import LLMError


class ProviderError(LLMError):
    """A chat (or image) call to a model endpoint failed.

    Every chat client raises only this (or :class:`~rath.errors.ConfigError`), so callers see
    one shape whatever the provider. The LLM activities turn it into a Temporal
    ``ApplicationError`` of type :attr:`error_type`, retryable or not as classified here.

    Attributes:
        error_type: ``LLMHTTP<status>``, ``LLMTimeout``, ``LLMConnectionError`` or
            ``LLMBadResponse``.
        retryable: Whether trying again may succeed (429, 5xx, 408/409/425, timeouts,
            connection failures, malformed or truncated responses).
        retry_after: The delay the endpoint asked for (``Retry-After``), in seconds, if any.
        status: The HTTP status, when the endpoint answered with one.
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

    def __reduce__(self) -> tuple[object, ...]:
        fields = (str(self), self.error_type, self.retryable, self.retry_after, self.status)
        return (_rebuild, fields)

    @property
    def auth_rejected(self) -> bool:
        """True for 401 and 403: this key was refused, another key may not be."""
        return self.status in (401, 403)


def _rebuild(
    message: str, error_type: str, retryable: bool, retry_after: float | None, status: int | None
) -> ProviderError:
    return ProviderError(
        message,
        error_type=error_type,
        retryable=retryable,
        retry_after=retry_after,
        status=status,
    )
