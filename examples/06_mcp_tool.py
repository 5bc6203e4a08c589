"""06 · MCP tool: an MCP server's tools become the agent's tools.

Run it: ``python examples/06_mcp_tool.py``. ``mcp_tools_from_server`` only describes the
server; nothing starts here. When the run begins, a worker lists the server's tools once (an
activity; the list is kept in the workflow) and each call is an activity over a connection the
worker pools, so the server process starts once and is reused. SSE and streamable-HTTP servers
work the same way (``mcp_tools_from_server(url="http://...")``), and
``mcp_tools_from_config("mcp.json")`` reads the usual ``{"mcpServers": {...}}`` file.
"""

import sys
from pathlib import Path

from rath import flow
from rath.session import Session
from rath.tools.mcp import mcp_tools_from_server

SERVER = Path(__file__).with_name("mcp_echo_server.py")


def main() -> None:
    echo_server = mcp_tools_from_server([sys.executable, str(SERVER)], name="echo")
    agent = flow.Agent(
        "Use your tools.",
        provider=flow.Provider(model="gpt-4o-mini"),
        tools=[echo_server],
        name="echoer",
    )
    out = agent(Session.from_user_message('Say it back: use echo with {"text": "hello from mcp"}'))
    print(out)


if __name__ == "__main__":
    main()
