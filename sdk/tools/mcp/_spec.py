"""``McpServerSpec``: where an MCP server is and how to reach it, as a secret-free value."""

from __future__ import annotations

import hashlib
import json
import posixpath
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from rath.tools.mcp._refs import is_name, normalise_reference

McpTransport = Literal["stdio", "sse", "streamable_http"]
"""The three MCP transports: a subprocess over stdin/stdout, HTTP+SSE, streamable HTTP."""

_KEY_FIELDS = ("transport", "command", "args", "env", "cwd", "url", "headers")


class McpServerSpec(BaseModel):
    """An MCP server, described so it can travel through workflow history.

    The spec never holds a secret: ``env`` and ``headers`` values are references to the
    worker's environment (``"API_TOKEN"`` or a template like ``"Bearer ${API_TOKEN}"``), which
    the worker resolves when it connects. Constructing a spec does not connect.

    Attributes:
        transport: ``"stdio"``, ``"sse"`` or ``"streamable_http"``.
        name: A label for messages and summaries (not part of :attr:`key`).
        command: stdio: the executable to start (looked up on the worker's ``PATH``).
        args: stdio: its arguments.
        env: stdio: variables to set for the server, each mapped to a reference into the
            worker's environment. Beyond these the server gets only a minimal safe environment
            (``PATH``, ``HOME``, ``USER``, ...), never the worker's whole environment.
        cwd: stdio: the server's working directory on the worker.
        url: sse / streamable_http: the endpoint (``http`` or ``https``, no credentials in it).
        headers: sse / streamable_http: HTTP headers, each mapped to a reference.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    transport: McpTransport
    name: str | None = None
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = {}
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = {}

    @field_validator("env", mode="before")
    @classmethod
    def _env_references(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            value = {name: name for name in value}
        if not isinstance(value, dict):
            return value
        out: dict[str, str] = {}
        for name, ref in value.items():
            if not isinstance(name, str) or not is_name(name):
                raise ValueError(f"env: {name!r} is not a valid environment variable name")
            if not isinstance(ref, str):
                raise ValueError(f"env {name!r}: expected a string reference")
            out[name] = normalise_reference(ref, f"env {name!r}")
        return dict(sorted(out.items()))

    @field_validator("headers", mode="before")
    @classmethod
    def _header_references(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out: dict[str, str] = {}
        for name, ref in value.items():
            if not isinstance(name, str) or not name or not isinstance(ref, str):
                raise ValueError(f"headers: bad entry {name!r}")
            out[name] = normalise_reference(ref, f"header {name!r}")
        return dict(sorted(out.items()))

    @model_validator(mode="after")
    def _fields_match_transport(self) -> McpServerSpec:
        if self.transport == "stdio":
            if not self.command:
                raise ValueError("a stdio MCP server needs a command")
            if self.url is not None or self.headers:
                raise ValueError("a stdio MCP server takes no url or headers")
            return self
        if self.command is not None or self.args or self.env or self.cwd is not None:
            raise ValueError(f"an {self.transport} MCP server takes no command, args, env or cwd")
        if not self.url:
            raise ValueError(f"an {self.transport} MCP server needs a url")
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"MCP server url must be http(s)://host/...: {self.url!r}")
        if parts.username is not None or parts.password is not None:
            raise ValueError(
                "MCP server url must not carry credentials (they would be stored in workflow "
                "history); pass them as headers that reference environment variables"
            )
        return self

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def key(self) -> str:
        """A stable id of the server connection: equal for specs that reach the same server.

        Workers pool one live connection per key. ``name`` does not count.
        """
        identity = self.model_dump(mode="json", include=set(_KEY_FIELDS))
        data = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def label(self) -> str:
        """A short human-readable name: ``name``, else the command or the url."""
        if self.name:
            return self.name
        if self.command is not None:
            return posixpath.basename(self.command)
        return str(self.url)
