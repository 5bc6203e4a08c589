"""A tiny MCP server with one tool, ``echo`` (stdio), for ``06_mcp_tool.py``."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("echo")


@server.tool()
def echo(text: str) -> str:
    """Echo the provided text back to the caller."""
    return text


if __name__ == "__main__":
    server.run("stdio")
