"""Specs, configs and bindings: pure values, secret-free, nothing connects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from rath.errors import ConfigError, ToolNameConflictError
from rath.tools.builtins import BUILTIN_TOOLS
from rath.tools.mcp import (
    McpServerSpec,
    McpToolInfo,
    McpToolList,
    McpTools,
    bind_mcp_tools,
    mcp_tools_from_config,
    mcp_tools_from_server,
)


def test_from_server_takes_an_argv_and_references_only() -> None:
    tools = mcp_tools_from_server(
        ["python", "-m", "srv"], args=["--fast"], env=["API_TOKEN"], name="srv", prefix="s_"
    )
    spec = tools.server
    assert (spec.transport, spec.command, spec.args) == ("stdio", "python", ("-m", "srv", "--fast"))
    assert spec.env == {"API_TOKEN": "${API_TOKEN}"}
    assert tools.prefix == "s_" and tools.allow is None
    # A JSON round trip (what workflow history does) keeps the value and its key.
    again = McpTools.model_validate_json(tools.model_dump_json())
    assert again == tools and again.server.key == spec.key


def test_literal_values_are_refused_without_being_echoed() -> None:
    with pytest.raises(ConfigError) as caught:
        mcp_tools_from_server("srv", env={"TOKEN": "sk-live-123"})
    assert "sk-live-123" not in str(caught.value)
    assert "environment variables" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        mcp_tools_from_server(url="http://127.0.0.1:1/mcp", headers={"Authorization": "Bearer x1"})
    assert "x1" not in str(caught.value)
    with pytest.raises(ConfigError, match="credentials"):
        mcp_tools_from_server(url="http://user:pw@127.0.0.1:1/mcp")


def test_references_may_be_names_or_templates() -> None:
    spec = mcp_tools_from_server(
        url="http://127.0.0.1:1/mcp",
        headers={"Authorization": "Bearer ${TOKEN}", "X-Team": "TEAM_ID"},
    ).server
    assert spec.transport == "streamable_http"
    assert spec.headers == {"Authorization": "Bearer ${TOKEN}", "X-Team": "${TEAM_ID}"}


def test_transport_from_the_url_or_explicit() -> None:
    assert mcp_tools_from_server(url="http://h/sse").server.transport == "sse"
    assert mcp_tools_from_server(url="http://h/mcp").server.transport == "streamable_http"
    assert mcp_tools_from_server(url="http://h/x", transport="sse").server.transport == "sse"
    assert mcp_tools_from_server(url="http://h/x", transport="http").server.transport == (
        "streamable_http"
    )
    with pytest.raises(ConfigError, match="unknown transport"):
        mcp_tools_from_server(url="http://h/x", transport="websocket")
    with pytest.raises(ConfigError, match="exactly one"):
        mcp_tools_from_server()
    with pytest.raises(ConfigError, match="exactly one"):
        mcp_tools_from_server("srv", url="http://h/mcp")
    with pytest.raises(ValidationError):
        McpServerSpec(transport="sse", url="http://h/sse", command="srv")


def test_the_key_names_the_connection_not_the_label() -> None:
    base = McpServerSpec(transport="stdio", command="srv", args=("a",), name="one")
    assert base.key == base.model_copy(update={"name": "two"}).key
    assert base.key != McpServerSpec(transport="stdio", command="srv", args=("b",)).key
    assert base.key != McpServerSpec(transport="stdio", command="srv", args=("a",), cwd="/").key
    assert hash(base) == hash(base.model_copy(update={"name": "two"}))  # hashable, dicts and all
    assert len(base.key) == 16 and base.label() == "one"


def test_config_in_the_common_format(tmp_path: Path) -> None:
    config = {
        "mcpServers": {
            "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
            "git": {"command": ["uvx", "mcp-server-git"], "env": {"GIT_TOKEN": "${GIT_TOKEN}"}},
            "docs": {
                "url": "http://127.0.0.1:8000/mcp",
                "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
                "alwaysAllow": ["search"],
            },
            "events": {"url": "http://127.0.0.1:8001/events", "type": "sse"},
            "off": {"command": "never", "disabled": True},
        }
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    tools = mcp_tools_from_config(path)
    assert [t.server.name for t in tools] == ["time", "git", "docs", "events"]
    time, git, docs, events = (t.server for t in tools)
    assert time.args == ("--local-timezone", "UTC")
    assert (git.command, git.args, git.env) == (
        "uvx",
        ("mcp-server-git",),
        {"GIT_TOKEN": "${GIT_TOKEN}"},
    )
    assert docs.transport == "streamable_http" and docs.headers["Authorization"].endswith("}")
    assert events.transport == "sse"
    only = mcp_tools_from_config(config, servers=["off", "git"], prefix_server_names=True)
    assert [(t.server.name, t.prefix) for t in only] == [("off", "off_"), ("git", "git_")]


def test_config_errors_name_the_server_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="available: a"):
        mcp_tools_from_config({"mcpServers": {"a": {"command": "x"}}}, servers=["b"])
    with pytest.raises(ConfigError, match="'a': give exactly one"):
        mcp_tools_from_config({"mcpServers": {"a": {"command": "x", "url": "http://h/"}}})
    with pytest.raises(ConfigError, match="mcpServers"):
        mcp_tools_from_config({"servers": []})
    with pytest.raises(ConfigError) as caught:
        mcp_tools_from_config({"mcpServers": {"a": {"command": "x", "env": {"K": "hunter2!"}}}})
    assert "MCP server 'a'" in str(caught.value) and "hunter2" not in str(caught.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(ConfigError, match=r"not valid JSON: .* line 1"):
        mcp_tools_from_config(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        mcp_tools_from_config(tmp_path / "missing.json")
    # OpenRath's layout still reads.
    (tools,) = mcp_tools_from_config(
        {"mcp": {"servers": {"fs": {"command": ["python", "-m", "s"]}}}}
    )
    assert tools.server.args == ("-m", "s")


def _listed(spec: McpServerSpec, *names: str) -> McpToolList:
    tools = tuple(
        McpToolInfo(name=n, parameters={"type": "object", "properties": {}}) for n in names
    )
    return McpToolList(server_key=spec.key, tools=tools)


def test_bind_applies_prefix_allow_list_and_safe_names() -> None:
    spec = McpServerSpec(transport="stdio", command="srv", name="srv")
    listed = _listed(spec, "read.file", "write/file", "delete")
    tools = McpTools(server=spec, prefix="fs_", allow=("read.file", "write*"))
    bindings = tools.bind(listed)
    assert [(b.name, b.tool) for b in bindings] == [
        ("fs_read_file", "read.file"),
        ("fs_write_file", "write/file"),
    ]
    assert bindings[0].resource_key("c1") == ("mcp", spec.key)
    parallel = tools.model_copy(update={"parallel_safe": True}).bind(listed)[0]
    assert parallel.resource_key("c1") == ("mcp", spec.key, "c1")
    with pytest.raises(ConfigError, match=r"no tool 'nope'; available: read\.file"):
        McpTools(server=spec, allow=("nope",)).bind(listed)
    with pytest.raises(ToolNameConflictError, match="both map to"):
        McpTools(server=spec).bind(_listed(spec, "a.b", "a_b"))
    other = McpServerSpec(transport="stdio", command="other")
    with pytest.raises(ConfigError, match="tool list of server"):
        McpTools(server=other).bind(listed)


def test_bind_all_rejects_clashes_with_builtins_and_between_servers() -> None:
    one = McpServerSpec(transport="stdio", command="one", name="one")
    two = McpServerSpec(transport="stdio", command="two", name="two")
    lists = [_listed(one, "search", "run_code"), _listed(two, "search")]
    with pytest.raises(ToolNameConflictError, match=r"'run_code'.*prefix"):
        bind_mcp_tools([McpTools(server=one)], lists, reserved=BUILTIN_TOOLS)
    with pytest.raises(ToolNameConflictError, match="'one' and 'two' both offer"):
        bind_mcp_tools([McpTools(server=one, allow=("search",)), McpTools(server=two)], lists)
    table = bind_mcp_tools(
        [McpTools(server=one, prefix="one_"), McpTools(server=two, prefix="two_")],
        lists,
        reserved=BUILTIN_TOOLS,
    )
    assert list(table) == ["one_search", "one_run_code", "two_search"]
    assert table["two_search"].server == two
    with pytest.raises(ConfigError, match="no tool list fetched"):
        bind_mcp_tools([McpTools(server=two)], lists[:1])


def test_describing_servers_does_not_import_the_sdk() -> None:
    # Clients and workflow code build specs; only a worker that connects pays for `import mcp`.
    code = (
        "import sys, rath.activities.mcp, rath.tools.mcp as m;"
        "m.mcp_tools_from_server('srv');"
        "print('mcp' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
