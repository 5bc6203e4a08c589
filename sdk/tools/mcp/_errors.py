"""``McpError``: an MCP server could not be reached, or answered with a protocol error."""

from __future__ import annotations

from rath.errors import RunError


class McpError(RunError):
    """An MCP server could not be started or reached, lost its connection, or refused a request.

    Attributes:
        retryable: Whether trying again may succeed (a dropped connection, a timeout, a
            server error); the activity boundary makes the others non-retryable failures.
        code: The JSON-RPC error code when the server itself answered with an error (the
            request reached it); ``None`` for connection and transport failures.
    """

    def __init__(self, message: str, *, retryable: bool = True, code: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.code = code
